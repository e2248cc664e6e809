// Console page of the lighting plugin: every driver of every site with its connection, and each one's
// device registry (what the driver knows, and which light or sensor of the site uses each device).
export async function render(root, api) {
  const { h, table } = api;
  const rows = h('tbody');
  const registry = h('div', { id: 'driver-devices' });

  async function showDevices(d) {
    const devices = await api.get(`/lighting/drivers/${encodeURIComponent(d._id)}/devices`);
    registry.replaceChildren(
      h(
        'table',
        {},
        h('caption', {}, `Devices of ${d._id} (${d.vendor}, site ${d.site.name ?? d.site.siteid})`),
        h(
          'thead',
          {},
          h('tr', {}, ...['Device id', 'Kind', 'Name', 'Used by'].map((t) => h('th', { scope: 'col' }, t))),
        ),
        h(
          'tbody',
          {},
          ...(devices.length
            ? devices.map((dev) =>
                h(
                  'tr',
                  { 'data-device': dev.protocolid },
                  h('td', {}, dev.protocolid),
                  h('td', {}, dev.kind),
                  h('td', {}, dev.name ?? ''),
                  h(
                    'td',
                    {},
                    dev.used ? `${dev.used.name}${dev.used.new ? ' (new, not accepted)' : ''}` : 'not used',
                  ),
                ),
              )
            : [h('tr', {}, h('td', { colspan: 4 }, 'The driver knows no devices.'))]),
        ),
      ),
    );
    api.say(`${devices.length} devices of ${d._id} shown below.`);
  }

  async function load() {
    const drivers = await api.get('/lighting/drivers');
    rows.replaceChildren(
      ...(drivers.length
        ? drivers.map((d) =>
            h(
              'tr',
              { 'data-driver': d._id },
              h('td', {}, d._id),
              h('td', {}, d.vendor),
              h('td', {}, d.site.name ?? d.site.siteid),
              h(
                'td',
                {},
                d.connected ? 'connected' : 'not connected',
                h('br'),
                h('small', {}, `since ${d.since}`),
              ),
              h('td', {}, String(d.devices)),
              h(
                'td',
                {},
                h(
                  'button',
                  { type: 'button', 'aria-label': `Devices of ${d._id}`, onclick: () => showDevices(d) },
                  'Devices',
                ),
              ),
            ),
          )
        : [h('tr', {}, h('td', { colspan: 6 }, 'No drivers are running.'))]),
    );
  }

  root.append(
    table(
      'Drivers and their connections',
      ['Driver', 'Kind', 'Site', 'Connection', 'Devices', 'Actions'],
      rows,
    ),
    h('p', {}, h('button', { type: 'button', onclick: () => load() }, 'Refresh')),
    registry,
  );
  await load();
}
