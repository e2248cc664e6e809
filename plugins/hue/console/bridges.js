// Console page of the hue plugin: paired bridges, bridges found on the LAN, and pairing with a clear
// "press the link button" prompt while the hub waits for it. Application keys never reach the browser.
export async function render(root, api) {
  const { h } = api;
  const table = h('tbody');
  const found = h('ul', { id: 'hue-found' });
  const status = h('p', { id: 'hue-status', role: 'status' });

  async function load() {
    const bridges = await api.get('/hue/bridges');
    table.replaceChildren(
      ...bridges.map((b) =>
        h(
          'tr',
          { 'data-bridge': b.bridgeId },
          h('td', {}, b.bridgeId),
          h('td', {}, `${b.host}:${b.port}`),
          h('td', {}, b.connected ? 'connected' : 'not connected'),
          h(
            'td',
            {},
            b.trust === 'pinned'
              ? `pinned certificate (SHA-256 ${b.fingerprint256})`
              : 'verified by a trusted root',
          ),
          h(
            'td',
            {},
            h(
              'button',
              {
                type: 'button',
                'aria-label': `Remove bridge ${b.bridgeId}`,
                onclick: async () => {
                  if (
                    !confirm(
                      `Remove bridge ${b.bridgeId}? Its lights stop responding until it is paired again.`,
                    )
                  )
                    return;
                  await api.send('DELETE', `/hue/bridges/${b.bridgeId}`);
                  api.say(`Removed bridge ${b.bridgeId}.`);
                  await load();
                },
              },
              'Remove',
            ),
          ),
        ),
      ),
    );
  }

  const host = h('input', { id: 'hue-host', name: 'host', required: true, maxlength: 253 });
  const port = h('input', { id: 'hue-port', name: 'port', type: 'number', min: 1, max: 65535, value: 443 });
  const site = h('input', { id: 'hue-site', name: 'site', required: true, maxlength: 100, value: 'Home' });
  const pairButton = h('button', { type: 'submit' }, 'Pair');

  async function pair(e) {
    e.preventDefault();
    pairButton.disabled = true;
    const prompt = `Press the link button on the Hue bridge at ${host.value} now. Waiting for it…`;
    status.textContent = prompt;
    api.say(prompt);
    try {
      const b = await api.send('POST', '/hue/bridges', {
        host: host.value,
        port: Number(port.value),
        site: site.value,
      });
      const how = b.trust === 'pinned' ? ` Its certificate was pinned (SHA-256 ${b.fingerprint256}).` : '';
      status.textContent = `Paired bridge ${b.bridgeId}.${how}`;
      api.say(`Paired bridge ${b.bridgeId}.`);
      await load();
    } catch (err) {
      status.textContent = err.message;
      api.say(err.message, true);
    } finally {
      pairButton.disabled = false;
    }
  }

  root.append(
    h(
      'table',
      {},
      h('caption', {}, 'Hue bridges'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Bridge id'),
          h('th', { scope: 'col' }, 'Address'),
          h('th', { scope: 'col' }, 'Link'),
          h('th', { scope: 'col' }, 'Trust'),
          h('th', { scope: 'col' }, 'Actions'),
        ),
      ),
      table,
    ),
    h(
      'button',
      {
        type: 'button',
        onclick: async () => {
          api.say('Looking for bridges…');
          try {
            const list = await api.get('/hue/discover');
            found.replaceChildren(
              ...list.map((b) =>
                h(
                  'li',
                  {},
                  h(
                    'button',
                    {
                      type: 'button',
                      onclick: () => {
                        host.value = b.host;
                        port.value = b.port;
                      },
                    },
                    `${b.name} (${b.bridgeId}) at ${b.host}${b.paired ? ', paired' : ''}`,
                  ),
                ),
              ),
            );
            api.say(
              list.length === 0 ? 'No bridge answered; enter its address.' : `${list.length} bridges found.`,
            );
          } catch (err) {
            api.say(err.message, true);
          }
        },
      },
      'Find bridges',
    ),
    found,
    h(
      'form',
      { onsubmit: pair },
      h('h3', {}, 'Pair a bridge'),
      h('label', { for: 'hue-host' }, 'Bridge address'),
      host,
      ' ',
      h('label', { for: 'hue-port' }, 'Port'),
      port,
      ' ',
      h('label', { for: 'hue-site' }, 'Site'),
      site,
      ' ',
      pairButton,
    ),
    status,
  );
  await load();
}
