// Console page of the authorization server: protected resources with their exchange, runtime and connect
// policies, and which fronting links name each one (the links themselves have a page of their own). Every
// row can be edited in place: "Edit" opens a pre-filled form under its table; a refused save changes nothing.
export async function render(root, api) {
  const { h, run, button, table, words, editor, textarea } = api;
  const lines = (s) =>
    s
      .split('\n')
      .map((x) => x.trim())
      .filter(Boolean);
  // Scopes as lines "name | description | upstream scope" (the last two optional).
  const scopeText = (scopes) =>
    scopes
      .map((s) => {
        const parts = [s.name, s.description ?? '', s.upstream ?? ''];
        while (parts.length > 1 && !parts.at(-1)) parts.pop();
        return parts.join(' | ');
      })
      .join('\n');
  const readScopes = (text) =>
    lines(text).map((line) => {
      const [name, description, upstream] = line.split('|').map((x) => x.trim());
      return { name, ...(description ? { description } : {}), ...(upstream ? { upstream } : {}) };
    });

  const resourceRows = h('tbody');
  const resourceEdit = h('div', { id: 'resource-edit' });
  // Not a live region: opening it moves focus to its heading, which is announced anyway.
  const linksOf = h('div', { id: 'resource-links' });
  const resourceEditor = editor(resourceEdit, load);
  const policyResource = h('select', { id: 'policy-resource' });
  const policyClient = h('select', { id: 'policy-client' });
  const connectResource = h('select', { id: 'connect-resource' });
  const newBroker = h('select', { id: 'resource-broker' });
  let brokers = [];

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
  const returnUrls = (r) => {
    const urls = r.policy.connect?.allowed_return_urls ?? [];
    if (urls.length === 0) return r.backend_kind === 'broker' ? 'none' : '—';
    return h(
      'ul',
      {},
      urls.map((url) =>
        h(
          'li',
          {},
          h('span', { class: 'secret' }, url),
          ' ',
          button('Remove', `Remove return URL ${url} of ${r.slug}`, async () => {
            await api.send(
              'DELETE',
              `/resources/${encodeURIComponent(r.slug)}/policy/connect/allowed-return-urls?url=${encodeURIComponent(url)}`,
            );
            api.say(`Removed ${url} from ${r.slug}.`);
            await load();
          }),
        ),
      ),
    );
  };
  const brokerSlug = (id) => brokers.find((b) => b.id === id)?.slug ?? id;
  const brokerOptions = (sel, selected) =>
    sel.replaceChildren(
      ...brokers.map((b) =>
        h('option', { value: b.id, selected: b.id === selected }, `${b.display_name} (${b.slug})`),
      ),
    );

  function editResource(r) {
    const site = r.uri.startsWith('urn:hearth:site:');
    const p = 'edit-resource';
    const name = h('input', { id: `${p}-name`, required: true, value: r.display_name });
    const slug = h('input', {
      id: `${p}-slug`,
      required: true,
      pattern: '[a-z0-9][a-z0-9-]{0,63}',
      value: r.slug,
    });
    const uri = h('input', { id: `${p}-uri`, required: true, value: r.uri });
    const kind = h(
      'select',
      { id: `${p}-kind` },
      h('option', { value: 'mint', selected: r.backend_kind === 'mint' }, 'minted here'),
      h('option', { value: 'broker', selected: r.backend_kind === 'broker' }, 'brokered (upstream)'),
    );
    const broker = h('select', { id: `${p}-broker` });
    brokerOptions(broker, r.broker_provider_id);
    const scopes = textarea({ id: `${p}-scopes`, required: true }, scopeText(r.scopes));
    const exchange = h('input', {
      id: `${p}-exchange`,
      value: r.policy.exchange.allowed_client_ids.join(' '),
      placeholder: 'empty: any client',
    });
    const runtime = h('input', {
      id: `${p}-runtime`,
      value: r.policy.runtime.client_ids.join(' '),
      placeholder: 'empty: none',
    });
    const hadConnect = r.policy.connect !== undefined;
    const connect = textarea(
      { id: `${p}-connect` },
      (r.policy.connect?.allowed_return_urls ?? []).join('\n'),
    );
    const label = (id, text) => h('label', { for: `${p}-${id}` }, text);
    resourceEditor(
      `resource ${r.slug}`,
      [
        [label('name', 'Display name'), name],
        site
          ? h('p', {}, 'Slug, URI, scopes and backend follow the lighting site.')
          : [
              [label('slug', 'Slug'), slug],
              [label('uri', 'URI (audience of its tokens)'), uri],
              [label('kind', 'Backend'), kind],
              [label('broker', 'Broker provider (brokered resources)'), broker],
              [
                label(
                  'scopes',
                  'Scopes, one a line: name | description | upstream scope (the last two optional)',
                ),
                scopes,
              ],
            ],
        [label('exchange', 'Clients that may obtain tokens by exchange (IDs; empty: any)'), exchange],
        [label('runtime', 'Clients that may act as the resource (IDs; empty: none)'), runtime],
        [label('connect', 'Connect return URLs, one a line'), connect],
      ],
      async () => {
        const urls = lines(connect.value);
        const body = {
          display_name: name.value,
          policy: {
            exchange: { allowed_client_ids: words(exchange.value) },
            runtime: { client_ids: words(runtime.value) },
            ...(hadConnect || urls.length || kind.value === 'broker'
              ? { connect: { allowed_return_urls: urls } }
              : {}),
          },
        };
        if (!site) {
          Object.assign(body, {
            slug: slug.value,
            uri: uri.value,
            backend_kind: kind.value,
            scopes: readScopes(scopes.value),
            ...(kind.value === 'broker' ? { broker_provider_id: broker.value } : {}),
          });
        }
        const saved = await api.send('PATCH', `/resources/${encodeURIComponent(r.id)}`, body);
        return `Saved resource ${saved.slug}.`;
      },
    );
  }

  async function showLinks(r) {
    const f = await api.get(`/resources/${encodeURIComponent(r.slug)}/fronting`);
    const item = (l, other) =>
      h(
        'li',
        {},
        `${other}: `,
        Object.entries(l.scope_map)
          .map(([k, v]) => `${k} → ${v.join(' ')}`)
          .join('; '),
      );
    const heading = h('h4', { id: 'resource-links-title', tabindex: '-1' }, `Fronting links of ${f.slug}`);
    linksOf.replaceChildren(
      h(
        'section',
        { 'aria-labelledby': heading.id },
        heading,
        h('p', {}, `${f.slug} fronts:`),
        f.fronts.length
          ? h(
              'ul',
              {},
              f.fronts.map((l) => item(l, l.target_slug)),
            )
          : h('p', {}, 'nothing'),
        h('p', {}, `${f.slug} is fronted by:`),
        f.fronted_by.length
          ? h(
              'ul',
              {},
              f.fronted_by.map((l) => item(l, l.source_slug)),
            )
          : h('p', {}, 'nothing'),
        button('Close', `Close the fronting links of ${f.slug}`, async () => linksOf.replaceChildren()),
      ),
    );
    heading.focus();
  }

  async function load() {
    const [resources, clients, brokerList] = await Promise.all([
      api.get('/resources'),
      api.get('/clients?limit=1000'),
      // Broker providers may be missing on a hub without brokering: resources are then minted only.
      api.get('/broker-providers').catch(() => []),
    ]);
    brokers = brokerList;
    resourceRows.replaceChildren(
      ...resources.map((r) =>
        h(
          'tr',
          { 'data-resource': r.slug },
          h('td', {}, r.display_name),
          h('td', {}, r.slug),
          h('td', { class: 'secret' }, r.uri),
          h(
            'td',
            {},
            r.backend_kind === 'broker' ? `brokered by ${brokerSlug(r.broker_provider_id)}` : 'minted',
          ),
          h('td', {}, r.scopes.map((s) => s.name).join(' ')),
          h('td', {}, clientList(r, 'exchange')),
          h('td', {}, clientList(r, 'runtime')),
          h('td', {}, returnUrls(r)),
          h(
            'td',
            {},
            button('Edit', `Edit resource ${r.slug}`, async () => editResource(r)),
            button('Links', `Fronting links of ${r.slug}`, () => showLinks(r)),
            r.uri.startsWith('urn:hearth:site:')
              ? ' managed by its site'
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
    for (const sel of [policyResource, connectResource])
      sel.replaceChildren(...options.map(([v, t]) => h('option', { value: v }, t)));
    policyClient.replaceChildren(...clients.map((c) => h('option', { value: c.id }, `${c.name} (${c.id})`)));
    brokerOptions(newBroker);
  }

  const slug = h('input', { id: 'resource-slug', required: true, pattern: '[a-z0-9][a-z0-9-]{0,63}' });
  const display = h('input', { id: 'resource-name', required: true });
  const uri = h('input', { id: 'resource-uri', placeholder: 'https://api.example/ or empty' });
  const scopes = h('input', {
    id: 'resource-scopes',
    required: true,
    placeholder: 'calendar:read calendar:write',
  });
  const kind = h(
    'select',
    { id: 'resource-kind' },
    h('option', { value: 'mint' }, 'minted here'),
    h('option', { value: 'broker' }, 'brokered (upstream)'),
  );
  const which = h(
    'select',
    { id: 'policy-list' },
    h('option', { value: 'exchange' }, 'may obtain tokens by exchange'),
    h('option', { value: 'runtime' }, 'may act as the resource (runtime)'),
  );
  const connectUrl = h('input', { id: 'connect-url', type: 'url', required: true });
  root.append(
    table(
      'Resources',
      [
        'Name',
        'Slug',
        'URI',
        'Backend',
        'Scopes',
        'Exchange: allowed clients',
        'Runtime clients',
        'Connect return URLs',
        'Actions',
      ],
      resourceRows,
    ),
    resourceEdit,
    linksOf,
    h(
      'form',
      {
        onsubmit: run('Create resource', async () => {
          const r = await api.send('POST', '/resources', {
            slug: slug.value,
            uri: uri.value,
            backend_kind: kind.value,
            ...(kind.value === 'broker' ? { broker_provider_id: newBroker.value } : {}),
            display_name: display.value,
            scopes: words(scopes.value).map((name) => ({ name })),
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
      h('label', { for: 'resource-kind' }, 'Backend'),
      kind,
      h('label', { for: 'resource-broker' }, 'Broker provider (brokered resources)'),
      newBroker,
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
    h(
      'form',
      {
        onsubmit: run('Return URL', async () => {
          await api.send(
            'POST',
            `/resources/${encodeURIComponent(connectResource.value)}/policy/connect/allowed-return-urls`,
            { url: connectUrl.value },
          );
          api.say(`Allowed ${connectUrl.value} for ${connectResource.value}.`);
          connectUrl.value = '';
          await load();
        }),
      },
      h('h3', {}, 'Allow a connect return URL'),
      h('label', { for: 'connect-resource' }, 'Resource to connect'),
      connectResource,
      h('label', { for: 'connect-url' }, 'Return URL (where the connect flow may send the browser back)'),
      connectUrl,
      h('p', {}, h('button', { type: 'submit' }, 'Allow return URL')),
    ),
  );
  await load();
}
