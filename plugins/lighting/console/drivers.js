// Console page of the lighting plugin: every driver of every site with its connection, each one's
// device registry (what the driver knows, and which light or sensor of the site uses each device), and
// the sensors that need attention (battery low, silent for longer than their kind allows).
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

  const attentionRows = h('tbody');
  const WARNINGS = { low_battery: 'battery low', silent: 'not heard from for too long' };

  async function loadAttention() {
    const list = await api.get('/lighting/sensors/attention');
    attentionRows.replaceChildren(
      ...(list.length
        ? list.map((s) =>
            h(
              'tr',
              { 'data-sensor': s._id },
              h('td', {}, s.name),
              h('td', {}, s.site.name ?? s.site.siteid),
              h('td', {}, `${s.vendor} ${s.protocolid}`),
              h('td', {}, s.warnings.map((w) => WARNINGS[w] ?? w).join(', ')),
              h(
                'td',
                {},
                s.readings?.battery === undefined ? '' : `battery ${s.readings.battery} %`,
                h('br'),
                h('small', {}, s.readings ? `last heard ${s.readings.lastSeen}` : ''),
              ),
            ),
          )
        : [h('tr', {}, h('td', { colspan: 5 }, 'Every sensor is fine.'))]),
    );
  }

  async function load() {
    await loadAttention();
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
    table('Sensors that need attention', ['Sensor', 'Site', 'Device', 'Why', 'Last known'], attentionRows),
  );
  await load();
}
