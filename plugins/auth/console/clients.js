// Console page of the authorization server: OAuth clients (create, edit in place, suspend, revoke, rotate
// the secret, delete) and the dynamic registration mode.

/** The grant types the admin API accepts (state/client-factory.ts CLIENT_GRANTS), with what each is for. */
const GRANTS = [
  ['authorization_code', 'Authorization code (an app signs a person in)'],
  ['refresh_token', 'Refresh token'],
  ['client_credentials', 'Client credentials (a device or service)'],
  ['urn:ietf:params:oauth:grant-type:token-exchange', 'Token exchange'],
  ['urn:ietf:params:oauth:grant-type:jwt-bearer', 'JWT bearer (identity assertion)'],
];
let forms = 0;

/**
 * The edit form of one client, pre-filled from the admin API's view. Save sends only what changed
 * (PATCH /clients/:id); the API checks it all again and its reason is announced. The authentication
 * method, application type and agent flag are fixed at registration, so they are shown, not offered.
 */
function clientEditor(api, c, resources, { saved, cancelled }) {
  const { h } = api;
  const n = ++forms;
  const id = (what) => `edit-${n}-${what}`;
  const lines = (text) => text.split(/\s+/).filter(Boolean);
  const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
  const name = h('input', { id: id('name'), required: true, maxlength: 200, value: c.name });
  const redirects = api.textarea({ id: id('redirects') }, c.redirect_uris.join('\n'));
  const scope = h('input', { id: id('scope'), value: c.scope, placeholder: 'lights:read scenes:apply' });
  const alg = h(
    'select',
    { id: id('alg') },
    ['RS256', 'ES256'].map((a) =>
      h('option', { value: a, selected: a === c.id_token_signed_response_alg }, a),
    ),
  );
  const box = (value, text, checked) =>
    h('label', {}, h('input', { type: 'checkbox', value, checked }), ` ${text}`);
  const known = new Set(resources.map((r) => r.uri));
  const grants = h(
    'fieldset',
    {},
    h('legend', {}, 'Grant types'),
    GRANTS.map(([g, text]) => box(g, text, c.grant_types.includes(g))),
  );
  const audience = h(
    'fieldset',
    {},
    h('legend', {}, 'Resources (none ticked: any resource)'),
    resources.map((r) => box(r.uri, `${r.display_name} (${r.slug})`, c.resources.includes(r.uri))),
    // A resource that no longer exists stays listed, so saving does not drop it unseen.
    c.resources.filter((u) => !known.has(u)).map((u) => box(u, `${u} (not a known resource)`, true)),
  );
  const ticked = (set) => [...set.querySelectorAll('input:checked')].map((i) => i.value);
  const submit = async (e) => {
    e.preventDefault();
    const body = {};
    if (name.value !== c.name) body.client_name = name.value;
    if (!same(lines(redirects.value), c.redirect_uris)) body.redirect_uris = lines(redirects.value);
    if (
      !same(
        ticked(grants),
        GRANTS.map(([g]) => g).filter((g) => c.grant_types.includes(g)),
      )
    )
      body.grant_types = ticked(grants);
    if (lines(scope.value).join(' ') !== c.scope) body.scope = scope.value;
    const res = ticked(audience);
    if (!same([...res].sort(), [...c.resources].sort())) body.resources = res;
    if (alg.value !== c.id_token_signed_response_alg) body.id_token_signed_response_alg = alg.value;
    if (Object.keys(body).length === 0) {
      api.say(`${c.name}: nothing changed.`);
      return cancelled();
    }
    try {
      await saved(await api.send('PATCH', `/clients/${encodeURIComponent(c.id)}`, body));
    } catch (err) {
      api.say(`Edit ${c.name}: ${err.message}`, true);
    }
  };
  const label = (what, text) => h('label', { for: id(what) }, text);
  return h(
    'form',
    { 'aria-labelledby': id('title'), onsubmit: submit },
    h('h3', { id: id('title') }, `Edit ${c.name}`),
    label('name', 'Name'),
    name,
    label('redirects', 'Redirect URIs (one per line)'),
    redirects,
    grants,
    label('scope', 'Scope ceiling (space-separated, empty: none)'),
    scope,
    audience,
    label('alg', 'ID token signing algorithm'),
    alg,
    h(
      'p',
      {},
      `Fixed at registration: authentication ${c.token_endpoint_auth_method}, application type `,
      `${c.application_type}, agent ${c.agent ? 'yes' : 'no'}.`,
    ),
    api.saveCancel(c.name, cancelled),
  );
}

export async function render(root, api) {
  const { h, run, button, table } = api;
  const rows = h('tbody');
  const shown = h('div', { id: 'new-client' });
  const resources = await api.get('/resources');
  const filter = run('Filter', async () => api.say(`${await load()} clients shown.`));
  const showStatus = h(
    'select',
    { id: 'filter-status', onchange: filter },
    h('option', { value: '' }, 'any'),
    ['active', 'suspended', 'revoked'].map((v) => h('option', { value: v }, v)),
  );
  const showSource = h(
    'select',
    { id: 'filter-source', onchange: filter },
    h('option', { value: '' }, 'any'),
    [
      ['admin', 'admin (this console or the API)'],
      ['dcr', 'dcr (dynamic registration)'],
      ['cimd', 'cimd (metadata document)'],
    ].map(([v, t]) => h('option', { value: v }, t)),
  );
  /** The open edit form (one at a time): its client and its table row, kept across reloads. */
  let editing = null;

  /** Closes the open form; the client's Edit button gets the focus back. */
  async function closeEditor(c) {
    editing = null;
    await load();
    rows.querySelector(`tr[data-client="${CSS.escape(c.id)}"] button.edit`)?.focus();
  }

  /** Opens the edit form under the client's row (or closes it when it is already open). */
  async function edit(c) {
    if (editing?.id === c.id) return closeEditor(c);
    const [current, known] = await Promise.all([
      api.get(`/clients/${encodeURIComponent(c.id)}`),
      api.get('/resources'),
    ]);
    const form = clientEditor(api, current, known, {
      saved: async (view) => {
        api.say(`Saved ${view.name}.`);
        await closeEditor(c);
      },
      cancelled: () => closeEditor(c),
    });
    editing = { id: c.id, row: h('tr', { 'data-edit': c.id }, h('td', { colspan: 7 }, form)) };
    await load();
    form.querySelector('input')?.focus();
  }

  async function load() {
    const q = new URLSearchParams({ limit: '1000' });
    if (showStatus.value) q.set('status', showStatus.value);
    if (showSource.value) q.set('source', showSource.value);
    const clients = await api.get(`/clients?${q}`);
    if (editing && !clients.some((c) => c.id === editing.id)) editing = null;
    rows.replaceChildren(
      ...clients.flatMap((c) => [
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
            h(
              'button',
              {
                type: 'button',
                class: 'edit',
                'aria-label': `Edit ${c.name}`,
                'aria-expanded': String(editing?.id === c.id),
                onclick: run(`Edit ${c.name}`, () => edit(c)),
              },
              'Edit',
            ),
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
        ...(editing?.id === c.id ? [editing.row] : []),
      ]),
    );
    return clients.length;
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
  const approved = api.textarea({ id: 'dcr-approved', rows: 2 }, (dcr.approved_redirects ?? []).join('\n'));

  root.append(
    h(
      'form',
      { class: 'inline', 'aria-label': 'Which clients', onsubmit: filter },
      h('label', { for: 'filter-status' }, 'Status filter'),
      showStatus,
      h('label', { for: 'filter-source' }, 'Source filter'),
      showSource,
    ),
    table(
      'Clients',
      ['Name', 'Client ID', 'Source', 'Status', 'Grant types', 'Scope ceiling', 'Actions'],
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
