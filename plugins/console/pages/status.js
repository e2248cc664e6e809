// The hub's status: version, plugins and their health, storage, and the notices plugins raised.
export async function render(root, api) {
  const { h } = api;
  const s = await api.get('/hub');
  const notices = s.notices ?? [];
  root.append(
    h('p', {}, `Hearth ${s.version ?? ''} · ${s.state ?? ''} · up ${s.uptime_s ?? 0} s`),
    h('h3', {}, 'Notices'),
    notices.length
      ? h(
          'ul',
          {},
          notices.map((n) => h('li', {}, `${n.source}: ${n.text}`)),
        )
      : h('p', {}, 'No notices.'),
    h('h3', {}, 'Plugins'),
    h(
      'table',
      {},
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Plugin'),
          h('th', { scope: 'col' }, 'State'),
          h('th', { scope: 'col' }, 'Detail'),
        ),
      ),
      h(
        'tbody',
        {},
        (s.plugins ?? []).map((p) =>
          h(
            'tr',
            {},
            h('td', {}, p.name),
            h('td', {}, p.health?.status ?? p.status),
            h('td', {}, p.health?.detail ?? p.error ?? ''),
          ),
        ),
      ),
    ),
  );
  // Rotating the admin key ends every session signed in with the key (this one too, unless it was opened
  // with the owner password) at its next call: the new key is shown once, here.
  const shown = h('div', { id: 'new-admin-key' });
  root.append(
    h('h3', {}, 'Admin key'),
    h(
      'p',
      {},
      h(
        'button',
        {
          type: 'button',
          onclick: async () => {
            if (!confirm('Rotate the admin key? Every script and console session using the old key stops.'))
              return;
            try {
              const { key } = await api.send('POST', '/admin-key/rotate');
              shown.replaceChildren(
                h(
                  'p',
                  {},
                  api.session?.() === 'password'
                    ? 'The new admin key, shown only now. Keep it for scripts and the command line:'
                    : 'The new admin key, shown only now. Keep it; you need it to sign in again:',
                ),
                h('p', { class: 'secret' }, key),
              );
              api.say('The admin key was rotated; the new key is shown below.');
            } catch (err) {
              api.say(err.message, true);
            }
          },
        },
        'Rotate the admin key',
      ),
    ),
    shown,
  );
}
