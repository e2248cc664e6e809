// Console page of the authorization server: protected resources with their exchange and runtime policies,
// and the fronting links that map one resource's scopes to another's (token exchange).
export async function render(root, api) {
  const { h } = api;
  const run = (what, fn) => async (e) => {
    e?.preventDefault?.();
    try {
      await fn();
    } catch (err) {
      api.say(`${what}: ${err.message}`, true);
    }
  };
  const button = (text, label, fn) =>
    h('button', { type: 'button', 'aria-label': label, onclick: run(text, fn) }, text);
  const table = (caption, heads, body) =>
    h(
      'table',
      {},
      h('caption', {}, caption),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          heads.map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      body,
    );
  const resourceRows = h('tbody');
  const linkRows = h('tbody');
  const policyResource = h('select', { id: 'policy-resource' });
  const linkSource = h('select', { id: 'link-source' });
  const linkTarget = h('select', { id: 'link-target' });
  const policyClient = h('select', { id: 'policy-client' });

  const LISTS = { exchange: 'exchange/allowed-clients', runtime: 'runtime/client-ids' };
  const clientList = (r, which) => {
    const ids = which === 'exchange' ? r.policy.exchange.allowed_client_ids : r.policy.runtime.client_ids;
    if (ids.length === 0) return which === 'exchange' ? 'any client' : 'none';
    return h(
      'ul',
      {},
      ids.map((id) =>
        h(
          'li',
          {},
          h('span', { class: 'secret' }, id),
          ' ',
          button('Remove', `Remove ${id} from the ${which} list of ${r.slug}`, async () => {
            await api.send(
              'DELETE',
              `/resources/${encodeURIComponent(r.slug)}/policy/${LISTS[which]}/${encodeURIComponent(id)}`,
            );
            api.say(`Removed ${id} from ${r.slug}.`);
            await load();
          }),
        ),
      ),
    );
  };

  async function load() {
    const [resources, links, clients] = await Promise.all([
      api.get('/resources'),
      api.get('/fronting'),
      api.get('/clients?limit=1000'),
    ]);
    resourceRows.replaceChildren(
      ...resources.map((r) =>
        h(
          'tr',
          { 'data-resource': r.slug },
          h('td', {}, r.display_name),
          h('td', {}, r.slug),
          h('td', { class: 'secret' }, r.uri),
          h('td', {}, r.scopes.map((s) => s.name).join(' ')),
          h('td', {}, clientList(r, 'exchange')),
          h('td', {}, clientList(r, 'runtime')),
          h(
            'td',
            {},
            r.uri.startsWith('urn:hearth:site:')
              ? 'managed by its site'
              : button('Delete', `Delete resource ${r.slug}`, async () => {
                  if (!confirm(`Delete ${r.slug} and the fronting links that name it?`)) return;
                  await api.send('DELETE', `/resources/${encodeURIComponent(r.id)}?cascade=true`);
                  api.say(`Deleted ${r.slug}.`);
                  await load();
                }),
          ),
        ),
      ),
    );
    const options = resources.map((r) => [r.slug, `${r.display_name} (${r.slug})`]);
    for (const sel of [policyResource, linkSource, linkTarget])
      sel.replaceChildren(...options.map(([v, t]) => h('option', { value: v }, t)));
    policyClient.replaceChildren(...clients.map((c) => h('option', { value: c.id }, `${c.name} (${c.id})`)));
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
            button('Delete', `Delete the link ${l.source_slug} to ${l.target_slug}`, async () => {
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

  const slug = h('input', { id: 'resource-slug', required: true, pattern: '[a-z0-9][a-z0-9-]{0,63}' });
  const display = h('input', { id: 'resource-name', required: true });
  const uri = h('input', { id: 'resource-uri', placeholder: 'https://api.example/ or empty' });
  const scopes = h('input', {
    id: 'resource-scopes',
    required: true,
    placeholder: 'calendar:read calendar:write',
  });
  const which = h(
    'select',
    { id: 'policy-list' },
    h('option', { value: 'exchange' }, 'may obtain tokens by exchange'),
    h('option', { value: 'runtime' }, 'may act as the resource (runtime)'),
  );
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
      'Resources',
      ['Name', 'Slug', 'URI', 'Scopes', 'Exchange: allowed clients', 'Runtime clients', 'Actions'],
      resourceRows,
    ),
    h(
      'form',
      {
        onsubmit: run('Create resource', async () => {
          const r = await api.send('POST', '/resources', {
            slug: slug.value,
            uri: uri.value,
            backend_kind: 'mint',
            display_name: display.value,
            scopes: scopes.value
              .split(/\s+/)
              .filter(Boolean)
              .map((name) => ({ name })),
          });
          api.say(`Created resource ${r.slug}.`);
          slug.value = '';
          await load();
        }),
      },
      h('h3', {}, 'New resource'),
      h('label', { for: 'resource-slug' }, 'Slug'),
      slug,
      h('label', { for: 'resource-name' }, 'Display name'),
      display,
      h('label', { for: 'resource-uri' }, 'URI (audience of its tokens)'),
      uri,
      h('label', { for: 'resource-scopes' }, 'Scopes (space-separated)'),
      scopes,
      h('p', {}, h('button', { type: 'submit' }, 'Create resource')),
    ),
    h(
      'form',
      {
        onsubmit: run('Policy', async () => {
          await api.send(
            'POST',
            `/resources/${encodeURIComponent(policyResource.value)}/policy/${LISTS[which.value]}`,
            {
              client_id: policyClient.value,
            },
          );
          api.say(`Added ${policyClient.value} to ${policyResource.value}.`);
          await load();
        }),
      },
      h('h3', {}, 'Add a client to a policy'),
      h('label', { for: 'policy-resource' }, 'Resource'),
      policyResource,
      h('label', { for: 'policy-client' }, 'Client'),
      policyClient,
      h('label', { for: 'policy-list' }, 'The client'),
      which,
      h('p', {}, h('button', { type: 'submit' }, 'Add to policy')),
    ),
    h('h3', {}, 'Fronting links'),
    table(
      'Fronting links (token exchange from source to target)',
      ['Source', 'Target', 'Scope map', 'Created', 'Actions'],
      linkRows,
    ),
    h(
      'form',
      {
        onsubmit: run('Fronting link', async () => {
          const map = {};
          for (const line of scopeMap.value.split(/[\n;]/)) {
            const [from, to] = line.split('=');
            if (from?.trim() && to?.trim()) map[from.trim()] = to.trim().split(/\s+/);
          }
          const body = { source: linkSource.value, target: linkTarget.value, scope_map: map };
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
