// Console page of the MQTT plugin: the broker's credentials (per-device, per-site and operator), create and delete.
export async function render(root, api) {
  const { h } = api;
  const rows = h('tbody');
  const shown = h('div', { id: 'new-credential' });
  const [sites] = await Promise.all([api.get('/sites')]);
  const siteName = (id) => sites.find((s) => s.siteid === id)?.name ?? id ?? 'operator';

  async function load() {
    const list = await api.get('/mqtt/credentials');
    rows.replaceChildren(
      ...list.map((c) =>
        h(
          'tr',
          { 'data-username': c.username },
          h('td', {}, c.username),
          h('td', {}, c.operator ? `operator (${c.operator})` : siteName(c.site)),
          h('td', {}, c.topics ? c.topics.join(' ') : 'any device topic'),
          h(
            'td',
            {},
            h(
              'button',
              {
                type: 'button',
                'aria-label': `Delete credential ${c.username}`,
                onclick: async () => {
                  if (
                    !confirm(`Delete the MQTT credential ${c.username}? Devices using it are disconnected.`)
                  )
                    return;
                  await api.send('DELETE', `/mqtt/credentials/${encodeURIComponent(c.username)}`);
                  api.say(`Deleted ${c.username}.`);
                  await load();
                },
              },
              'Delete',
            ),
          ),
        ),
      ),
    );
  }

  const username = h('input', {
    id: 'mqtt-username',
    required: true,
    maxlength: 64,
    pattern: '[A-Za-z0-9._\\-]+',
  });
  const site = h(
    'select',
    { id: 'mqtt-site' },
    sites.map((s) => h('option', { value: s.siteid }, s.name)),
  );
  root.append(
    h(
      'table',
      {},
      h('caption', {}, 'MQTT credentials'),
      h(
        'thead',
        {},
        h('tr', {}, ...['User name', 'Site', 'Topics', 'Actions'].map((t) => h('th', { scope: 'col' }, t))),
      ),
      rows,
    ),
    h(
      'form',
      {
        onsubmit: async (e) => {
          e.preventDefault();
          try {
            const c = await api.send('POST', '/mqtt/credentials', {
              username: username.value,
              site: site.value,
            });
            username.value = '';
            shown.replaceChildren(
              h('h3', {}, `Created ${c.username}`),
              h('p', {}, 'Its password is shown only now:'),
              h('p', { class: 'secret' }, c.password),
            );
            api.say(`Created ${c.username}; its password is shown below.`);
            await load();
          } catch (err) {
            api.say(err.message, true);
          }
        },
      },
      h('h3', {}, 'New device credential'),
      h('label', { for: 'mqtt-username' }, 'User name'),
      username,
      h('label', { for: 'mqtt-site' }, 'Site'),
      site,
      ' ',
      h('button', { type: 'submit' }, 'Create'),
    ),
    shown,
  );
  await load();
}
