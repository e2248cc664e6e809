// Console page of the MQTT plugin: the device registry (found by discovery or registered), with accept,
// rename, move to another site and delete, and the broker's retained messages with clearing.
export async function render(root, api) {
  const { h } = api;
  const rows = h('tbody');
  const retainedRows = h('tbody');
  const sites = await api.get('/sites');
  const siteName = (id) => sites.find((s) => s.siteid === id)?.name ?? id;

  async function change(method, path, body, done) {
    try {
      await api.send(method, path, body);
      api.say(done);
    } catch (err) {
      api.say(err.message, true);
    }
    await load();
  }

  function deviceRow(d) {
    const id = encodeURIComponent(d.protocolid);
    const label = d.name ?? d.protocolid;
    const move = h(
      'select',
      {
        'aria-label': `Site of ${label}`,
        onchange: (e) =>
          change(
            'PATCH',
            `/mqtt/devices/${id}`,
            { site: e.target.value },
            `${label} moved to ${siteName(e.target.value)}.`,
          ),
      },
      sites.map((s) => h('option', { value: s.siteid, selected: s.siteid === d.site }, s.name)),
    );
    return h(
      'tr',
      { 'data-mqtt-device': d.protocolid },
      h('td', {}, d.protocolid),
      h('td', {}, d.name ?? ''),
      h('td', {}, `${d.kind} (${d.profile})`),
      h('td', {}, move),
      h('td', {}, d.gone ? 'gone' : d.available ? 'available' : 'offline', d.new ? ', new' : ''),
      h(
        'td',
        {},
        d.new
          ? h(
              'button',
              {
                type: 'button',
                'aria-label': `Accept ${label}`,
                onclick: () => change('PATCH', `/mqtt/devices/${id}`, { new: false }, `${label} accepted.`),
              },
              'Accept',
            )
          : '',
        ' ',
        h(
          'button',
          {
            type: 'button',
            'aria-label': `Delete ${label}`,
            onclick: () => {
              if (confirm(`Delete the MQTT device ${label}?`))
                change('DELETE', `/mqtt/devices/${id}`, undefined, `${label} deleted.`);
            },
          },
          'Delete',
        ),
      ),
    );
  }

  async function load() {
    const [devices, retained] = await Promise.all([
      api.get('/mqtt/devices'),
      api.get('/mqtt/retained?limit=100'),
    ]);
    rows.replaceChildren(
      ...(devices.length
        ? devices.map(deviceRow)
        : [
            h(
              'tr',
              {},
              h('td', { colspan: 6 }, 'No MQTT devices yet. Devices that announce themselves show up here.'),
            ),
          ]),
    );
    retainedRows.replaceChildren(
      ...(retained.length
        ? retained.map((m) =>
            h(
              'tr',
              {},
              h('td', {}, m.topic),
              h('td', {}, m.text ?? `${m.bytes} bytes`),
              h(
                'td',
                {},
                h(
                  'button',
                  {
                    type: 'button',
                    'aria-label': `Clear the retained message on ${m.topic}`,
                    onclick: () =>
                      change(
                        'DELETE',
                        `/mqtt/retained?topic=${encodeURIComponent(m.topic)}`,
                        undefined,
                        `Cleared ${m.topic}.`,
                      ),
                  },
                  'Clear',
                ),
              ),
            ),
          )
        : [h('tr', {}, h('td', { colspan: 3 }, 'No retained messages.'))]),
    );
  }

  root.append(
    h(
      'table',
      {},
      h('caption', {}, 'MQTT devices'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...['Device id', 'Name', 'Kind', 'Site', 'State', 'Actions'].map((t) =>
            h('th', { scope: 'col' }, t),
          ),
        ),
      ),
      rows,
    ),
    h(
      'table',
      {},
      h('caption', {}, 'Retained messages (the first 100 by topic)'),
      h(
        'thead',
        {},
        h('tr', {}, ...['Topic', 'Payload', 'Actions'].map((t) => h('th', { scope: 'col' }, t))),
      ),
      retainedRows,
    ),
  );
  await load();
}
