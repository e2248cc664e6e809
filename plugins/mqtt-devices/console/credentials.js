// Console page of the MQTT plugin: the broker's credentials (per-site, per-device with topic filters, and
// operator), create and delete. A password the hub made is shown once; one the operator typed is not echoed.
export async function render(root, api) {
  const { h, table } = api;
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
                  try {
                    await api.send('DELETE', `/mqtt/credentials/${encodeURIComponent(c.username)}`);
                    api.say(`Deleted ${c.username}.`);
                  } catch (err) {
                    api.say(err.message, true);
                  }
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
  const topics = h('input', { id: 'mqtt-topics', 'aria-describedby': 'mqtt-topics-help' });
  const password = h('input', {
    id: 'mqtt-password',
    type: 'password',
    autocomplete: 'new-password',
    minlength: 12,
    'aria-describedby': 'mqtt-password-help',
  });
  // An operator credential sees the whole bus: it has no site and no topic filters.
  const access = h(
    'select',
    {
      id: 'mqtt-access',
      onchange: () => {
        const operator = access.value !== 'site';
        site.disabled = operator;
        topics.disabled = operator;
      },
    },
    h('option', { value: 'site' }, "a site's devices"),
    h('option', { value: 'read' }, 'operator, read only'),
    h('option', { value: 'readwrite' }, 'operator, read and write'),
  );
  root.append(
    table('MQTT credentials', ['User name', 'Site', 'Topics', 'Actions'], rows),
    h(
      'form',
      {
        onsubmit: async (e) => {
          e.preventDefault();
          try {
            const body = { username: username.value };
            if (access.value === 'site') {
              body.site = site.value;
              if (topics.value.trim()) body.topics = topics.value.trim().split(/\s+/);
            } else body.operator = access.value;
            const chosen = password.value !== '';
            if (chosen) body.password = password.value;
            const c = await api.send('POST', '/mqtt/credentials', body);
            username.value = '';
            topics.value = '';
            password.value = '';
            if (chosen) {
              shown.replaceChildren(
                h('h3', {}, `Created ${c.username}`),
                h('p', {}, 'With the password you chose.'),
              );
              api.say(`Created ${c.username} with the password you chose.`);
            } else {
              shown.replaceChildren(
                h('h3', {}, `Created ${c.username}`),
                h('p', {}, 'Its password is shown only now:'),
                h('p', { class: 'secret' }, c.password),
              );
              api.say(`Created ${c.username}; its password is shown below.`);
            }
            await load();
          } catch (err) {
            api.say(err.message, true);
          }
        },
      },
      h('h3', {}, 'New credential'),
      h('label', { for: 'mqtt-username' }, 'User name'),
      username,
      h('label', { for: 'mqtt-access' }, 'May reach'),
      access,
      h('label', { for: 'mqtt-site' }, 'Site'),
      site,
      h('label', { for: 'mqtt-topics' }, 'Topic filters (optional)'),
      topics,
      h(
        'p',
        { id: 'mqtt-topics-help' },
        "Narrows the credential to one device's topics, e.g. tasmota/kitchen/#; separated by spaces.",
      ),
      h('label', { for: 'mqtt-password' }, 'Password (optional)'),
      password,
      h('p', { id: 'mqtt-password-help' }, 'At least 12 characters; left empty, the hub makes one.'),
      h('p', {}, h('button', { type: 'submit' }, 'Create')),
    ),
    shown,
  );
  await load();
}
