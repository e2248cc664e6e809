// Console page of the authorization server: the people who sign in (create, disable, sign out everywhere,
// delete) and what each has granted (consent grants to apps, broker grants for upstream accounts).
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
  const grantsArea = h('div', { id: 'user-grants' });
  const when = (iso) => (iso ? iso.slice(0, 16).replace('T', ' ') : '');

  async function showGrants(u) {
    const [g, clients] = await Promise.all([
      api.get(`/users/${encodeURIComponent(u.id)}/grants`),
      api.get('/clients?limit=1000'),
    ]);
    const clientName = (id) => clients.find((c) => c.id === id)?.name ?? id;
    const revokeButton = (kind, grant, label) =>
      grant.revoked_at
        ? `revoked ${when(grant.revoked_at)}`
        : button('Revoke', label, async () => {
            await api.send('DELETE', `/grants/${kind}/${encodeURIComponent(grant.id)}`);
            await showGrants(u);
            api.say(`Revoked the ${kind} grant ${grant.id}.`);
          });
    const head = (cells) =>
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          cells.map((c) => h('th', { scope: 'col' }, c)),
        ),
      );
    grantsArea.replaceChildren(
      h('h3', {}, `Grants of ${u.email}`),
      h(
        'table',
        {},
        h('caption', {}, `Apps ${u.email} allowed (consent grants)`),
        head(['App', 'Resource', 'Scopes', 'Since', 'State']),
        h(
          'tbody',
          {},
          g.consent_grants.map((c) =>
            h(
              'tr',
              { 'data-grant': c.id },
              h('td', {}, clientName(c.client_id)),
              h('td', {}, c.resource_id),
              h('td', {}, c.scopes.join(' ')),
              h('td', {}, when(c.created_at)),
              h(
                'td',
                {},
                revokeButton('consent', c, `Revoke the consent of ${u.email} for ${clientName(c.client_id)}`),
              ),
            ),
          ),
        ),
      ),
      h(
        'table',
        {},
        h('caption', {}, `Upstream accounts of ${u.email} (broker grants)`),
        head(['Provider', 'Scopes', 'Version', 'Since', 'State']),
        h(
          'tbody',
          {},
          g.broker_grants.map((b) =>
            h(
              'tr',
              { 'data-grant': b.id },
              h('td', {}, b.broker_provider_id),
              h('td', {}, b.scopes_granted.join(' ')),
              h('td', {}, String(b.version)),
              h('td', {}, when(b.created_at)),
              h(
                'td',
                {},
                revokeButton(
                  'broker',
                  b,
                  `Revoke the upstream account of ${u.email} at ${b.broker_provider_id}`,
                ),
              ),
            ),
          ),
        ),
      ),
    );
    api.say(
      `${g.consent_grants.length} consent grants, ${g.broker_grants.length} broker grants for ${u.email}.`,
    );
  }

  async function load() {
    const users = await api.get('/users');
    rows.replaceChildren(
      ...users.map((u) =>
        h(
          'tr',
          { 'data-user': u.id },
          h('td', {}, u.email),
          h('td', {}, u.name),
          h('td', {}, u.role),
          h('td', {}, u.status),
          h(
            'td',
            {},
            button(
              u.status === 'active' ? 'Disable' : 'Enable',
              `${u.status === 'active' ? 'Disable' : 'Enable'} ${u.email}`,
              async () => {
                await api.send(
                  'PATCH',
                  `/users/${encodeURIComponent(u.id)}/${u.status === 'active' ? 'disable' : 'enable'}`,
                );
                api.say(`${u.email} is now ${u.status === 'active' ? 'disabled' : 'active'}.`);
                await load();
              },
            ),
            button('Grants', `Grants of ${u.email}`, () => showGrants(u)),
            button('Sign out everywhere', `Sign ${u.email} out everywhere`, async () => {
              const r = await api.send('DELETE', `/users/${encodeURIComponent(u.id)}/tokens`);
              api.say(`${u.email}: ${r.revoked} tokens revoked, ${r.sessions_ended} sessions ended.`);
            }),
            button('Delete', `Delete ${u.email}`, async () => {
              if (!confirm(`Delete ${u.email}? Their tokens and consents are revoked.`)) return;
              await api.send('DELETE', `/users/${encodeURIComponent(u.id)}?force=true`);
              api.say(`Deleted ${u.email}.`);
              await load();
            }),
          ),
        ),
      ),
    );
  }

  const email = h('input', { id: 'user-email', type: 'email', required: true, autocomplete: 'off' });
  const name = h('input', { id: 'user-name', required: true });
  const password = h('input', {
    id: 'user-password',
    type: 'password',
    required: true,
    minlength: 8,
    autocomplete: 'new-password',
  });
  const role = h(
    'select',
    { id: 'user-role' },
    h('option', { value: 'user' }, 'user'),
    h('option', { value: 'admin' }, 'admin'),
  );
  root.append(
    h(
      'table',
      {},
      h('caption', {}, 'Users'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Email', 'Name', 'Role', 'Status', 'Actions'].map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      rows,
    ),
    h(
      'form',
      {
        onsubmit: run('Create user', async () => {
          const u = await api.send('POST', '/users', {
            email: email.value,
            name: name.value,
            password: password.value,
            role: role.value,
          });
          password.value = '';
          api.say(`Created ${u.email}.`);
          await load();
        }),
      },
      h('h3', {}, 'New user'),
      h('label', { for: 'user-email' }, 'Email'),
      email,
      h('label', { for: 'user-name' }, 'Display name'),
      name,
      h('label', { for: 'user-password' }, 'Password (at least 8 characters)'),
      password,
      h('label', { for: 'user-role' }, 'Role'),
      role,
      h('p', {}, h('button', { type: 'submit' }, 'Create user')),
    ),
    grantsArea,
  );
  await load();
}
