// Console page of the authorization server: the people who sign in (create, edit, disable, sign out
// everywhere, delete), what each has granted (consent grants to apps, broker grants for upstream accounts)
// and what each holds now (tokens and browser sessions, each revocable).
let forms = 0;

/**
 * The edit form of one user, pre-filled from the admin API (the password field never is: an empty one
 * keeps the password). Save sends only what changed (PATCH /users/:id); the API's reason is announced.
 * The form does not validate in the browser, so what the API refuses is what the operator reads.
 */
function userEditor(api, u, { saved, cancelled }) {
  const { h } = api;
  const n = ++forms;
  const id = (what) => `user-edit-${n}-${what}`;
  const email = h('input', { id: id('email'), type: 'email', autocomplete: 'off', value: u.email });
  const name = h('input', { id: id('name'), autocomplete: 'off', value: u.name });
  const password = h('input', { id: id('password'), type: 'password', autocomplete: 'new-password' });
  const submit = async (e) => {
    e.preventDefault();
    const body = {};
    if (email.value !== u.email) body.email = email.value;
    if (name.value !== u.name) body.name = name.value;
    if (password.value) body.password = password.value;
    if (Object.keys(body).length === 0) {
      api.say(`${u.email}: nothing changed.`);
      return cancelled();
    }
    try {
      const view = await api.send('PATCH', `/users/${encodeURIComponent(u.id)}`, body);
      password.value = '';
      await saved(view, body.password !== undefined);
    } catch (err) {
      password.value = '';
      api.say(`Edit ${u.email}: ${err.message}`, true);
    }
  };
  const label = (what, text) => h('label', { for: id(what) }, text);
  return h(
    'form',
    { 'aria-labelledby': id('title'), onsubmit: submit, novalidate: true },
    h('h3', { id: id('title') }, `Edit ${u.email}`),
    label('email', 'Email address'),
    email,
    label('name', 'Display name'),
    name,
    label('password', 'New password (empty: unchanged; a new one ends their browser sessions)'),
    password,
    h('p', {}, `Role ${u.role} and sign-in provider ${u.provider} are set when the user is created.`),
    api.saveCancel(u.email, cancelled),
  );
}

export async function render(root, api) {
  const { h, run, button, table } = api;
  const rows = h('tbody');
  const grantsArea = h('div', { id: 'user-grants' });
  const detailArea = h('div', { id: 'user-detail' });
  const when = (iso) => (iso ? iso.slice(0, 16).replace('T', ' ') : '');
  /** The user whose tokens and sessions are shown (refreshed when they are signed out everywhere). */
  let detailOf = null;
  /** The open edit form (one at a time): its user and its table row, kept across reloads. */
  let editing = null;

  /** Closes the open form; the user's Edit button gets the focus back. */
  async function closeEditor(u) {
    editing = null;
    await load();
    rows.querySelector(`tr[data-user="${CSS.escape(u.id)}"] button.edit`)?.focus();
  }

  /** Opens the edit form under the user's row (or closes it when it is already open). */
  async function edit(u) {
    if (editing?.id === u.id) return closeEditor(u);
    const current = await api.get(`/users/${encodeURIComponent(u.id)}`);
    const form = userEditor(api, current, {
      saved: async (view, newPassword) => {
        api.say(`Saved ${view.email}${newPassword ? '; their browser sessions ended' : ''}.`);
        await closeEditor(u);
      },
      cancelled: () => closeEditor(u),
    });
    editing = { id: u.id, row: h('tr', { 'data-edit': u.id }, h('td', { colspan: 5 }, form)) };
    await load();
    form.querySelector('input')?.focus();
  }

  /** What the user holds now: access tokens (revocable one by one) and browser sessions. */
  async function showDetail(user) {
    detailOf = user.id;
    const path = `/users/${encodeURIComponent(user.id)}`;
    const [u, t, s, clients, resources] = await Promise.all([
      api.get(path),
      api.get(`${path}/tokens?limit=1000`),
      api.get(`${path}/sessions`),
      api.get('/clients?limit=1000'),
      api.get('/resources'),
    ]);
    const clientName = (id) => clients.find((c) => c.id === id)?.name ?? id;
    const resourceName = (id) => resources.find((r) => r.id === id)?.display_name ?? id;
    const now = Date.now();
    const state = (x) =>
      x.revoked_at ? `revoked ${when(x.revoked_at)}` : Date.parse(x.expires_at) <= now ? 'expired' : 'live';
    const again = async (message) => {
      await showDetail(u);
      api.say(message);
    };
    detailArea.replaceChildren(
      h('h3', {}, `Tokens and sessions of ${u.email}`),
      table(
        `Access tokens of ${u.email}`,
        ['Issued (UTC)', 'App', 'Resource', 'Scopes', 'Expires (UTC)', 'State', 'Actions'],
        h(
          'tbody',
          {},
          t.tokens.map((x) =>
            h(
              'tr',
              { 'data-token': x.jti },
              h('td', {}, when(x.issued_at)),
              h('td', {}, clientName(x.client_id)),
              h('td', {}, resourceName(x.resource_id)),
              h('td', {}, x.scopes.join(' ')),
              h('td', {}, when(x.expires_at)),
              h('td', {}, state(x)),
              h(
                'td',
                {},
                state(x) === 'live'
                  ? button('Revoke', `Revoke token ${x.jti} of ${u.email}`, async () => {
                      if (!confirm(`Revoke this token of ${u.email}? ${clientName(x.client_id)} loses it.`))
                        return;
                      const r = await api.send('DELETE', `/tokens/${encodeURIComponent(x.jti)}`);
                      await again(`Revoked ${r.revoked} token(s) of ${u.email}.`);
                    })
                  : '',
              ),
            ),
          ),
        ),
      ),
      table(
        `Browser sessions of ${u.email}`,
        ['Session', 'Signed in (UTC)', 'Expires (UTC)', 'Actions'],
        h(
          'tbody',
          {},
          s.sessions.map((x) =>
            h(
              'tr',
              { 'data-session': x.id },
              h('td', { class: 'secret' }, x.id),
              h('td', {}, when(x.created_at)),
              h('td', {}, when(x.expires_at)),
              h(
                'td',
                {},
                button('End session', `End session ${x.id} of ${u.email}`, async () => {
                  if (!confirm(`End this browser session of ${u.email}?`)) return;
                  await api.send('DELETE', `${path}/sessions/${encodeURIComponent(x.id)}`);
                  await again(`Ended a session of ${u.email}.`);
                }),
              ),
            ),
          ),
        ),
      ),
      s.sessions.length > 0
        ? h(
            'p',
            {},
            button('End all sessions', `End all sessions of ${u.email}`, async () => {
              if (!confirm(`End every browser session of ${u.email}? Tokens apps hold stay.`)) return;
              const r = await api.send('DELETE', `${path}/sessions`);
              await again(`Ended ${r.ended} session(s) of ${u.email}.`);
            }),
          )
        : h('p', {}, `${u.email} has no browser session.`),
    );
    api.say(`${t.tokens.length} tokens, ${s.sessions.length} sessions for ${u.email}.`);
  }

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
    if (editing && !users.some((u) => u.id === editing.id)) editing = null;
    rows.replaceChildren(
      ...users.flatMap((u) => [
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
            h(
              'button',
              {
                type: 'button',
                class: 'edit',
                'aria-label': `Edit ${u.email}`,
                'aria-expanded': String(editing?.id === u.id),
                onclick: run(`Edit ${u.email}`, () => edit(u)),
              },
              'Edit',
            ),
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
            button('Tokens and sessions', `Tokens and sessions of ${u.email}`, () => showDetail(u)),
            button('Sign out everywhere', `Sign ${u.email} out everywhere`, async () => {
              if (!confirm(`Sign ${u.email} out everywhere? Their tokens and browser sessions end.`)) return;
              const r = await api.send('DELETE', `/users/${encodeURIComponent(u.id)}/tokens`);
              if (detailOf === u.id) await showDetail(u);
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
        ...(editing?.id === u.id ? [editing.row] : []),
      ]),
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
    table('Users', ['Email', 'Name', 'Role', 'Status', 'Actions'], rows),
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
    detailArea,
  );
  await load();
}
