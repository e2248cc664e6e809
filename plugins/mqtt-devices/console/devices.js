// Console page of the MQTT plugin: the device registry (found by discovery or registered), with
// registering by hand, accept, rename, move to another site and delete (all sites or one), and the
// broker's retained messages, all or those a topic filter matches, with clearing (one topic, or every topic
// a filter matches).
export async function render(root, api) {
  const { h, button, table } = api;
  const rows = h('tbody');
  const retainedRows = h('tbody');
  const sites = await api.get('/sites');
  const siteName = (id) => sites.find((s) => s.siteid === id)?.name ?? id;

  async function change(method, path, body, done) {
    try {
      const res = await api.send(method, path, body);
      api.say(typeof done === 'function' ? done(res) : done);
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
      h('td', { class: 'device-name' }, d.name ?? ''),
      h('td', {}, `${d.kind} (${d.profile})`),
      h('td', {}, move),
      h('td', {}, d.gone ? 'gone' : d.available ? 'available' : 'offline', d.new ? ', new' : ''),
      h(
        'td',
        {},
        d.new
          ? button('Accept', `Accept ${label}`, () =>
              change('PATCH', `/mqtt/devices/${id}`, { new: false }, `${label} accepted.`),
            )
          : '',
        ' ',
        button('Rename', `Rename ${label}`, (e) =>
          // An empty name clears it: the device is shown by its id again.
          api.rename(e.target.closest('tr').querySelector('.device-name'), label, {
            shown: d.name ?? '',
            save: async (value) => {
              const res = await api.send('PATCH', `/mqtt/devices/${id}`, { name: value });
              return `${label} renamed to ${res.name || res.protocolid}.`;
            },
            reload: load,
          }),
        ),
        ' ',
        button('Delete', `Delete ${label}`, () => {
          if (confirm(`Delete the MQTT device ${label}?`))
            return change('DELETE', `/mqtt/devices/${id}`, undefined, `${label} deleted.`);
        }),
      ),
    );
  }

  // What the two lists show: one site's devices or all; retained messages matching a filter or all.
  let siteShown = '';
  let filterShown = '';
  let retainedCount = 0;
  const retainedCaption = h('caption', {});

  async function load() {
    const bySite = siteShown ? `?site=${encodeURIComponent(siteShown)}` : '';
    const byFilter = filterShown ? `&filter=${encodeURIComponent(filterShown)}` : '';
    const [devices, retained] = await Promise.all([
      api.get(`/mqtt/devices${bySite}`),
      api.get(`/mqtt/retained?limit=100${byFilter}`),
    ]);
    retainedCount = retained.length;
    retainedCaption.textContent = `Retained messages${filterShown ? ` matching ${filterShown}` : ''} (the first 100 by topic)`;
    rows.replaceChildren(
      ...(devices.length
        ? devices.map(deviceRow)
        : [
            h(
              'tr',
              {},
              h(
                'td',
                { colspan: 6 },
                siteShown
                  ? `No MQTT devices on ${siteName(siteShown)}.`
                  : 'No MQTT devices yet. Devices that announce themselves show up here.',
              ),
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
                button('Clear', `Clear the retained message on ${m.topic}`, () =>
                  change(
                    'DELETE',
                    `/mqtt/retained?topic=${encodeURIComponent(m.topic)}`,
                    undefined,
                    `Cleared ${m.topic}.`,
                  ),
                ),
              ),
            ),
          )
        : [h('tr', {}, h('td', { colspan: 3 }, 'No retained messages.'))]),
    );
  }

  const siteFilter = h(
    'select',
    {
      id: 'mqtt-devices-of',
      onchange: async () => {
        siteShown = siteFilter.value;
        try {
          await load();
          api.say(siteShown ? `Showing the devices of ${siteName(siteShown)}.` : 'Showing every site.');
        } catch (err) {
          api.say(err.message, true);
        }
      },
    },
    h('option', { value: '' }, 'every site'),
    sites.map((s) => h('option', { value: s.siteid }, s.name)),
  );
  root.append(
    h('p', {}, h('label', { for: 'mqtt-devices-of' }, 'Show the devices of'), siteFilter),
    table('MQTT devices', ['Device id', 'Name', 'Kind', 'Site', 'State', 'Actions'], rows),
    registerForm(),
    h(
      'table',
      {},
      retainedCaption,
      h(
        'thead',
        {},
        h('tr', {}, ...['Topic', 'Payload', 'Actions'].map((t) => h('th', { scope: 'col' }, t))),
      ),
      retainedRows,
    ),
    clearForm(),
  );
  await load();

  /** Registers a device that does not announce itself: `<profile>:<address>`, or a Home Assistant one. */
  function registerForm() {
    const id = h('input', {
      id: 'mqtt-device-id',
      required: true,
      placeholder: 'tasmota:kitchen',
      'aria-describedby': 'mqtt-device-id-help',
    });
    const site = h(
      'select',
      { id: 'mqtt-device-site' },
      sites.map((s) => h('option', { value: s.siteid }, s.name)),
    );
    const kind = h(
      'select',
      { id: 'mqtt-device-kind' },
      h('option', { value: '' }, 'as the profile says'),
      ['dimmable', 'binary', 'sensor'].map((k) => h('option', { value: k }, k)),
    );
    const name = h('input', { id: 'mqtt-device-name', maxlength: 100 });
    const events = h('input', { id: 'mqtt-device-events', 'aria-describedby': 'mqtt-device-events-help' });
    const ha = h('textarea', {
      id: 'mqtt-device-ha',
      rows: 4,
      cols: 40,
      'aria-describedby': 'mqtt-device-ha-help',
    });
    return h(
      'form',
      {
        onsubmit: async (e) => {
          e.preventDefault();
          const body = { mqttid: id.value.trim(), site: site.value };
          if (kind.value) body.kind = kind.value;
          if (name.value) body.name = name.value;
          if (events.value.trim()) body.events = events.value.trim().split(/\s+/);
          if (ha.value.trim()) {
            try {
              body.ha = JSON.parse(ha.value);
            } catch {
              return api.say('The Home Assistant topics are not valid JSON.', true);
            }
            body.profile = 'ha-json';
            body.address = body.mqttid.replace(/^ha:/, '');
          }
          try {
            const d = await api.send('POST', '/mqtt/devices', body);
            id.value = '';
            name.value = '';
            events.value = '';
            ha.value = '';
            api.say(`Registered ${d.name ?? d.protocolid} on ${siteName(d.site)}.`);
            await load();
          } catch (err) {
            api.say(err.message, true);
          }
        },
      },
      h('h3', {}, 'Register a device'),
      h('label', { for: 'mqtt-device-id' }, 'Device id'),
      id,
      h(
        'p',
        { id: 'mqtt-device-id-help' },
        '<profile>:<address>, e.g. tasmota:kitchen, shelly1:shelly1-AB12, zigbee2mqtt:hall-lamp; ha:<id> with topics below.',
      ),
      h('label', { for: 'mqtt-device-site' }, 'Site'),
      site,
      h('label', { for: 'mqtt-device-kind' }, 'Kind'),
      kind,
      h('label', { for: 'mqtt-device-name' }, 'Name (optional)'),
      name,
      h('label', { for: 'mqtt-device-events' }, 'Events (optional)'),
      events,
      h('p', { id: 'mqtt-device-events-help' }, "A sensor's event names, separated by spaces."),
      h(
        'details',
        {},
        h('summary', {}, 'Home Assistant device that does not announce itself'),
        h('label', { for: 'mqtt-device-ha' }, 'Home Assistant topics (JSON)'),
        ha,
        h(
          'p',
          { id: 'mqtt-device-ha-help' },
          'For example {"commandTopic": "den/lamp/set", "stateTopic": "den/lamp"}; see the plugin README.',
        ),
      ),
      h('p', {}, h('button', { type: 'submit' }, 'Register')),
    );
  }

  /** Shows the retained messages a topic filter matches, or clears every one of them after asking. */
  function clearForm() {
    const filter = h('input', { id: 'retained-filter', required: true, placeholder: 'tasmota/#' });
    const show = async (wanted) => {
      const before = filterShown;
      filterShown = wanted;
      try {
        await load();
        api.say(
          wanted ? `${retainedCount} retained messages match ${wanted}.` : 'Showing every retained message.',
        );
      } catch (err) {
        filterShown = before;
        api.say(err.message, true);
      }
    };
    return h(
      'form',
      {
        onsubmit: (e) => {
          e.preventDefault();
          if (!confirm(`Clear every retained message matching ${filter.value}?`)) return;
          change(
            'DELETE',
            `/mqtt/retained?filter=${encodeURIComponent(filter.value)}`,
            undefined,
            (res) => `Cleared ${res.cleared} retained messages matching ${filter.value}.`,
          );
        },
      },
      h('h3', {}, 'Retained messages by topic filter'),
      h('label', { for: 'retained-filter' }, 'Topic filter'),
      filter,
      ' ',
      h(
        'button',
        { type: 'button', onclick: () => (filter.reportValidity() ? show(filter.value) : undefined) },
        'Show matching',
      ),
      ' ',
      h('button', { type: 'button', onclick: () => show('') }, 'Show all'),
      ' ',
      h('button', { type: 'submit' }, 'Clear matching'),
    );
  }
}
