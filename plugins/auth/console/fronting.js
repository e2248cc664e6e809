// Console page of the authorization server: fronting links, which let a token for one resource be exchanged
// for a token to another with its scopes mapped (RFC 8693 token exchange); list, create (or only check),
// edit a link's scope map in place, delete.
export async function render(root, api) {
  const { h, run, button, table, editor, textarea } = api;
  const linkRows = h('tbody');
  const linkEdit = h('div', { id: 'link-edit' });
  const linkEditor = editor(linkEdit, load);
  const linkSource = h('select', { id: 'link-source' });
  const linkTarget = h('select', { id: 'link-target' });

  async function editLink(l) {
    const path = `/fronting/${encodeURIComponent(l.source_slug)}/${encodeURIComponent(l.target_slug)}`;
    const cur = await api.get(path);
    const map = textarea(
      { id: 'edit-link-map', required: true },
      Object.entries(cur.scope_map)
        .map(([k, v]) => `${k}=${v.join(' ')}`)
        .join('\n'),
    );
    const name = `${cur.source_slug} to ${cur.target_slug}`;
    linkEditor(
      `the link ${name}`,
      [[h('label', { for: 'edit-link-map' }, 'Scope map: one "source scope=target scopes" per line'), map]],
      async () => {
        await api.send('PATCH', path, { scope_map: readMap(map.value) });
        return `Saved the link ${cur.source_slug} → ${cur.target_slug}.`;
      },
    );
  }

  function readMap(text) {
    const map = {};
    for (const line of text.split(/[\n;]/)) {
      const [from, to] = line.split('=');
      if (from?.trim() && to?.trim()) map[from.trim()] = to.trim().split(/\s+/);
    }
    return map;
  }

  async function load() {
    const [resources, links] = await Promise.all([api.get('/resources'), api.get('/fronting')]);
    for (const sel of [linkSource, linkTarget])
      sel.replaceChildren(
        ...resources.map((r) => h('option', { value: r.slug }, `${r.display_name} (${r.slug})`)),
      );
    linkRows.replaceChildren(
      ...links.map((l) =>
        h(
          'tr',
          { 'data-link': `${l.source_slug}>${l.target_slug}` },
          h('td', {}, l.source_slug),
          h('td', {}, l.target_slug),
          h(
            'td',
            {},
            Object.entries(l.scope_map)
              .map(([k, v]) => `${k} → ${v.join(' ')}`)
              .join('; '),
          ),
          h('td', {}, l.created_at.slice(0, 16).replace('T', ' ')),
          h(
            'td',
            {},
            button('Edit', `Edit the link ${l.source_slug} to ${l.target_slug}`, () => editLink(l)),
            button('Delete', `Delete the link ${l.source_slug} to ${l.target_slug}`, async () => {
              if (!confirm(`Delete the link ${l.source_slug} → ${l.target_slug}?`)) return;
              await api.send(
                'DELETE',
                `/fronting/${encodeURIComponent(l.source_slug)}/${encodeURIComponent(l.target_slug)}`,
              );
              api.say(`Deleted the link ${l.source_slug} → ${l.target_slug}.`);
              await load();
            }),
          ),
        ),
      ),
    );
  }

  const scopeMap = h('textarea', {
    id: 'link-map',
    rows: 3,
    cols: 50,
    required: true,
    placeholder: 'calendar:read=lights:read',
  });
  const dryRun = h('input', { id: 'link-dry-run', type: 'checkbox' });

  root.append(
    table(
      'Fronting links (token exchange from source to target)',
      ['Source', 'Target', 'Scope map', 'Created', 'Actions'],
      linkRows,
    ),
    linkEdit,
    h(
      'form',
      {
        onsubmit: run('Fronting link', async () => {
          const body = {
            source: linkSource.value,
            target: linkTarget.value,
            scope_map: readMap(scopeMap.value),
          };
          await api.send('POST', `/fronting${dryRun.checked ? '?dry_run=true' : ''}`, body);
          api.say(
            dryRun.checked ? 'The link is valid (nothing saved).' : `Linked ${body.source} → ${body.target}.`,
          );
          if (!dryRun.checked) await load();
        }),
      },
      h('h3', {}, 'New fronting link'),
      h('label', { for: 'link-source' }, 'Source resource'),
      linkSource,
      h('label', { for: 'link-target' }, 'Target resource'),
      linkTarget,
      h('label', { for: 'link-map' }, 'Scope map: one "source scope=target scopes" per line'),
      scopeMap,
      h('p', {}, dryRun, ' ', h('label', { for: 'link-dry-run', class: 'inline' }, 'Only check (dry run)')),
      h('p', {}, h('button', { type: 'submit' }, 'Create link')),
    ),
  );
  await load();
}
