// Console page of the authorization server: trusted identity providers (cross-app access with ID-JAG),
// their XAA policies and subject mappings, and broker providers (upstream credential sources).
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
  const words = (s) => s.split(/[\s,]+/).filter(Boolean);
  const idpRows = h('tbody');
  const policyRows = h('tbody');
  const mappingRows = h('tbody');
  const brokerArea = h('div', { id: 'broker-providers' });
  const idpSelects = [h('select', { id: 'policy-idp' }), h('select', { id: 'mapping-idp' })];
  const mappingUser = h('select', { id: 'mapping-user' });

  async function load() {
    const [idps, policies, mappings, users] = await Promise.all([
      api.get('/idps'),
      api.get('/xaa/policies'),
      api.get('/xaa/subject-mappings'),
      api.get('/users'),
    ]);
    const idpName = (id) => idps.find((i) => i.id === id)?.name ?? id;
    idpRows.replaceChildren(
      ...idps.map((i) =>
        h(
          'tr',
          { 'data-idp': i.name },
          h('td', {}, i.name),
          h('td', { class: 'secret' }, i.issuer),
          h('td', {}, i.enabled ? 'enabled' : 'disabled'),
          h(
            'td',
            {},
            `${i.key_ids?.length ?? 0} keys${i.keys_fetched_at ? `, fetched ${i.keys_fetched_at.slice(0, 16).replace('T', ' ')}` : ''}`,
          ),
          h(
            'td',
            {},
            button('Refresh keys', `Refresh the keys of ${i.name}`, async () => {
              const r = await api.send('POST', `/idps/${encodeURIComponent(i.id)}/refresh-keys`);
              api.say(`${i.name}: ${r.key_ids?.length ?? 0} keys.`);
              await load();
            }),
            button('Delete', `Delete identity provider ${i.name}`, async () => {
              if (!confirm(`Delete ${i.name} with its policies and subject mappings?`)) return;
              await api.send('DELETE', `/idps/${encodeURIComponent(i.id)}`);
              api.say(`Deleted ${i.name}.`);
              await load();
            }),
          ),
        ),
      ),
    );
    for (const sel of idpSelects)
      sel.replaceChildren(...idps.map((i) => h('option', { value: i.id }, i.name)));
    mappingUser.replaceChildren(...users.map((u) => h('option', { value: u.id }, u.email)));
    policyRows.replaceChildren(
      ...policies.map((p) =>
        h(
          'tr',
          {},
          h('td', {}, p.name),
          h('td', {}, idpName(p.idp_id)),
          h('td', {}, p.client_ids.join(' ') || 'any'),
          h('td', {}, p.resources.join(' ') || 'any'),
          h('td', {}, p.scopes.join(' ') || 'any'),
          h('td', {}, p.enabled ? 'enabled' : 'disabled'),
          h(
            'td',
            {},
            button('Delete', `Delete policy ${p.name}`, async () => {
              await api.send('DELETE', `/xaa/policies/${encodeURIComponent(p.id)}`);
              api.say(`Deleted policy ${p.name}.`);
              await load();
            }),
          ),
        ),
      ),
    );
    const userEmail = (id) => users.find((u) => u.id === id)?.email ?? id;
    mappingRows.replaceChildren(
      ...mappings.map((m) =>
        h(
          'tr',
          {},
          h('td', {}, idpName(m.idp_id)),
          h('td', {}, m.idp_subject),
          h('td', {}, userEmail(m.local_user_id)),
          h(
            'td',
            {},
            button('Delete', `Delete the mapping of ${m.idp_subject}`, async () => {
              await api.send('DELETE', `/xaa/subject-mappings/${encodeURIComponent(m.id)}`);
              api.say(`Deleted the mapping of ${m.idp_subject}.`);
              await load();
            }),
          ),
        ),
      ),
    );
    await loadBrokers();
  }

  // Broker providers: their admin API may not exist on this hub yet; the section says so instead.
  const brokerRows = h('tbody');
  const bSlug = h('input', { id: 'broker-slug', required: true });
  const bName = h('input', { id: 'broker-name', required: true });
  const bProtocol = h('input', { id: 'broker-protocol', required: true, value: 'oauth2' });
  const bConfig = h('textarea', { id: 'broker-config', rows: 4, cols: 50, required: true });
  bConfig.value = '{}';
  async function loadBrokers() {
    let list;
    try {
      list = await api.get('/broker-providers');
    } catch (err) {
      brokerArea.replaceChildren(
        h('p', {}, `Broker providers are not available on this hub (${err.message}).`),
      );
      return;
    }
    brokerRows.replaceChildren(
      ...list.map((b) =>
        h(
          'tr',
          { 'data-broker': b.slug },
          h('td', {}, b.slug),
          h('td', {}, b.display_name),
          h('td', {}, b.protocol),
          h('td', {}, (b.created_at ?? '').slice(0, 16).replace('T', ' ')),
          h(
            'td',
            {},
            button('Delete', `Delete broker provider ${b.slug}`, async () => {
              if (!confirm(`Delete the broker provider ${b.slug}?`)) return;
              await api.send('DELETE', `/broker-providers/${encodeURIComponent(b.id)}`);
              api.say(`Deleted ${b.slug}.`);
              await loadBrokers();
            }),
          ),
        ),
      ),
    );
    if (!brokerArea.firstChild)
      brokerArea.replaceChildren(
        table('Broker providers', ['Slug', 'Name', 'Protocol', 'Created', 'Actions'], brokerRows),
        h(
          'form',
          {
            onsubmit: run('Broker provider', async () => {
              let config;
              try {
                config = JSON.parse(bConfig.value);
              } catch {
                throw new Error('the configuration must be JSON');
              }
              const b = await api.send('POST', '/broker-providers', {
                slug: bSlug.value,
                display_name: bName.value,
                protocol: bProtocol.value,
                config_data: config,
              });
              api.say(`Created broker provider ${b.slug}.`);
              await loadBrokers();
            }),
          },
          h('h4', {}, 'New broker provider'),
          h('label', { for: 'broker-slug' }, 'Slug'),
          bSlug,
          h('label', { for: 'broker-name' }, 'Display name'),
          bName,
          h('label', { for: 'broker-protocol' }, 'Protocol'),
          bProtocol,
          h('label', { for: 'broker-config' }, 'Configuration (JSON, stored as given)'),
          bConfig,
          h('p', {}, h('button', { type: 'submit' }, 'Create broker provider')),
        ),
      );
  }

  const iName = h('input', { id: 'idp-name', required: true });
  const iIssuer = h('input', { id: 'idp-issuer', type: 'url', required: true });
  const iJwks = h('input', { id: 'idp-jwks', type: 'url', placeholder: 'empty: from the issuer metadata' });
  const pName = h('input', { id: 'policy-name', required: true });
  const pClients = h('input', { id: 'policy-clients', placeholder: 'empty: any client' });
  const pResources = h('input', { id: 'policy-resources', placeholder: 'empty: any resource' });
  const pScopes = h('input', { id: 'policy-scopes', placeholder: 'empty: no narrowing' });
  const mSubject = h('input', { id: 'mapping-subject', required: true });

  root.append(
    table('Identity providers (cross-app access)', ['Name', 'Issuer', 'State', 'Keys', 'Actions'], idpRows),
    h(
      'form',
      {
        onsubmit: run('Identity provider', async () => {
          const i = await api.send('POST', '/idps', {
            name: iName.value,
            issuer: iIssuer.value,
            ...(iJwks.value ? { jwks_uri: iJwks.value } : {}),
          });
          api.say(`Added ${i.name}.`);
          await load();
        }),
      },
      h('h3', {}, 'New identity provider'),
      h('label', { for: 'idp-name' }, 'Provider name'),
      iName,
      h('label', { for: 'idp-issuer' }, 'Issuer URL'),
      iIssuer,
      h('label', { for: 'idp-jwks' }, 'JWKS URL'),
      iJwks,
      h('p', {}, h('button', { type: 'submit' }, 'Add identity provider')),
    ),
    table(
      'XAA policies',
      ['Name', 'Identity provider', 'Clients', 'Resources', 'Scopes', 'State', 'Actions'],
      policyRows,
    ),
    h(
      'form',
      {
        onsubmit: run('XAA policy', async () => {
          await api.send('POST', '/xaa/policies', {
            name: pName.value,
            idp_id: idpSelects[0].value,
            client_ids: words(pClients.value),
            resources: words(pResources.value),
            scopes: words(pScopes.value),
          });
          api.say(`Added policy ${pName.value}.`);
          await load();
        }),
      },
      h('h3', {}, 'New XAA policy'),
      h('label', { for: 'policy-name' }, 'Policy name'),
      pName,
      h('label', { for: 'policy-idp' }, 'Identity provider'),
      idpSelects[0],
      h('label', { for: 'policy-clients' }, 'Client IDs'),
      pClients,
      h('label', { for: 'policy-resources' }, 'Resources (slugs or URIs)'),
      pResources,
      h('label', { for: 'policy-scopes' }, 'Scopes'),
      pScopes,
      h('p', {}, h('button', { type: 'submit' }, 'Add policy')),
    ),
    table('Subject mappings', ['Identity provider', 'Subject there', 'User here', 'Actions'], mappingRows),
    h(
      'form',
      {
        onsubmit: run('Subject mapping', async () => {
          await api.send('POST', '/xaa/subject-mappings', {
            idp_id: idpSelects[1].value,
            idp_subject: mSubject.value,
            local_user_id: mappingUser.value,
          });
          api.say(`Mapped ${mSubject.value}.`);
          await load();
        }),
      },
      h('h3', {}, 'New subject mapping'),
      h('label', { for: 'mapping-idp' }, 'Identity provider'),
      idpSelects[1],
      h('label', { for: 'mapping-subject' }, 'Subject at the provider'),
      mSubject,
      h('label', { for: 'mapping-user' }, 'Local user'),
      mappingUser,
      h('p', {}, h('button', { type: 'submit' }, 'Add mapping')),
    ),
    h('h3', {}, 'Broker providers'),
    brokerArea,
  );
  await load();
}
