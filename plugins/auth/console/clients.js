// Console page of the authorization server: OAuth clients (create, suspend, revoke, rotate the secret,
// delete) and the dynamic registration mode.
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
  const rows = h('tbody');
  const shown = h('div', { id: 'new-client' });
  const resources = await api.get('/resources');

  async function load() {
    const clients = await api.get('/clients?limit=1000');
    rows.replaceChildren(
      ...clients.map((c) =>
        h(
          'tr',
          { 'data-client': c.id },
          h('td', {}, c.name),
          h('td', { class: 'secret' }, c.id),
          h('td', {}, c.registration_source),
          h('td', {}, c.status),
          h('td', {}, c.grant_types.join(', ')),
          h('td', {}, c.scope || '—'),
          h(
            'td',
            {},
            c.status === 'active'
              ? button('Suspend', `Suspend ${c.name}`, () => transition(c, 'suspend'))
              : null,
            c.status === 'suspended'
              ? button('Reactivate', `Reactivate ${c.name}`, () => transition(c, 'reactivate'))
              : null,
            c.status !== 'revoked'
              ? button('Revoke', `Revoke ${c.name}`, () => transition(c, 'revoke'))
              : null,
            c.token_endpoint_auth_method !== 'none' && c.status !== 'revoked'
              ? button('New secret', `New secret for ${c.name}`, async () => {
                  if (!confirm(`Replace the secret of ${c.name}? The old one stops working.`)) return;
                  const r = await api.send('POST', `/clients/${encodeURIComponent(c.id)}/rotate-secret`);
                  showSecret(c.name, c.id, r.client_secret);
                })
              : null,
            button('Delete', `Delete ${c.name}`, async () => {
              if (!confirm(`Delete ${c.name}? Its tokens are revoked.`)) return;
              await api.send('DELETE', `/clients/${encodeURIComponent(c.id)}?force=true`);
              api.say(`Deleted ${c.name}.`);
              await load();
            }),
          ),
        ),
      ),
    );
  }

  async function transition(c, verb) {
    if (verb === 'revoke' && !confirm(`Revoke ${c.name} for good? Its tokens stop working.`)) return;
    await api.send('PATCH', `/clients/${encodeURIComponent(c.id)}/${verb}`);
    api.say(`${c.name}: ${verb} done.`);
    await load();
  }

  function showSecret(name, id, secret) {
    shown.replaceChildren(
      h('h3', {}, `Credentials of ${name}`),
      h('p', {}, 'Client ID: ', h('span', { class: 'secret' }, id)),
      secret ? h('p', {}, 'Client secret (shown only now): ', h('span', { class: 'secret' }, secret)) : null,
    );
    api.say(secret ? `The secret of ${name} is shown below, once.` : `Created ${name}.`);
  }

  // Registration
  const name = h('input', { id: 'client-name', required: true, maxlength: 200 });
  const kind = h(
    'select',
    { id: 'client-kind' },
    h('option', { value: 'device' }, 'Device or service (client credentials)'),
    h('option', { value: 'app' }, 'App that signs a person in (code flow, public)'),
  );
  const scope = h('input', { id: 'client-scope', placeholder: 'lights:read scenes:apply' });
  const resource = h(
    'select',
    { id: 'client-resource' },
    h('option', { value: '' }, 'Any resource'),
    resources.map((r) => h('option', { value: r.uri }, `${r.display_name} (${r.slug})`)),
  );
  const redirects = h('textarea', { id: 'client-redirects', rows: 2, cols: 50 });
  const create = run('Create client', async () => {
    const app = kind.value === 'app';
    const c = await api.send('POST', '/clients', {
      client_name: name.value,
      redirect_uris: app ? redirects.value.split(/\s+/).filter(Boolean) : [],
      grant_types: app ? ['authorization_code', 'refresh_token'] : ['client_credentials'],
      response_types: app ? ['code'] : [],
      token_endpoint_auth_method: app ? 'none' : 'client_secret_basic',
      scope: app ? '' : scope.value,
      resources: !app && resource.value ? [resource.value] : [],
      agent: false,
      agent_description: '',
    });
    name.value = '';
    showSecret(c.client_name, c.client_id, c.client_secret);
    await load();
  });

  // Dynamic registration mode
  const dcr = await api.get('/settings/dcr');
  const mode = h(
    'select',
    { id: 'dcr-mode' },
    ['open', 'approved_redirects', 'admin_only'].map((m) =>
      h('option', { value: m, selected: m === dcr.mode }, m),
    ),
  );
  const approved = h('textarea', { id: 'dcr-approved', rows: 2, cols: 50 });
  approved.value = (dcr.approved_redirects ?? []).join('\n');

  root.append(
    h(
      'table',
      {},
      h('caption', {}, 'Clients'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Name', 'Client ID', 'Source', 'Status', 'Grant types', 'Scope ceiling', 'Actions'].map((t) =>
            h('th', { scope: 'col' }, t),
          ),
        ),
      ),
      rows,
    ),
    h(
      'form',
      { onsubmit: create },
      h('h3', {}, 'New client'),
      h('label', { for: 'client-name' }, 'Client name'),
      name,
      h('label', { for: 'client-kind' }, 'Kind'),
      kind,
      h('label', { for: 'client-scope' }, 'Scope ceiling (devices)'),
      scope,
      h('label', { for: 'client-resource' }, 'Resource (devices)'),
      resource,
      h('label', { for: 'client-redirects' }, 'Redirect URIs (apps, one per line)'),
      redirects,
      h('p', {}, h('button', { type: 'submit' }, 'Create client')),
    ),
    shown,
    h(
      'form',
      {
        onsubmit: run('Registration mode', async () => {
          const r = await api.send('PATCH', '/settings/dcr', {
            mode: mode.value,
            approved_redirects: approved.value.split(/\s+/).filter(Boolean),
          });
          api.say(`Dynamic registration is now ${r.mode}.`);
        }),
      },
      h('h3', {}, 'Dynamic client registration'),
      h('label', { for: 'dcr-mode' }, 'Mode'),
      mode,
      h('label', { for: 'dcr-approved' }, 'Approved redirect URIs (approved_redirects mode)'),
      approved,
      h('p', {}, h('button', { type: 'submit' }, 'Save mode')),
    ),
  );
  await load();
}
