// Zigbee: the stick's status and pairing (permit-join) with a countdown of the time joining stays open,
// the devices in the network with removal, and the network's backup (download) and restore (upload).
export async function render(root, api) {
  const { h, table } = api;
  const status = h('ul', { id: 'zigbee-status' }, h('li', {}, '…'));
  const seconds = h('input', { id: 'zigbee-seconds', type: 'number', min: '1', max: '254', value: '120' });
  const countdown = h('p', { id: 'zigbee-countdown' }, '');
  const devices = h('tbody', { id: 'zigbee-devices' });
  const file = h('input', {
    id: 'zigbee-restore-file',
    type: 'file',
    accept: '.json,application/json',
  });
  let timer = null;
  const show = (left) => {
    clearInterval(timer);
    let n = left;
    const tick = () => {
      countdown.textContent =
        n > 0 ? `Joining is open: ${n} s left. Reset or pair the devices now.` : 'Joining is closed.';
      if (n <= 0) clearInterval(timer);
      n--;
    };
    tick();
    if (left > 0) timer = setInterval(tick, 1000);
  };
  const refresh = async () => {
    try {
      const s = await api.get('/zigbee/status');
      status.replaceChildren(
        ...Object.entries(s).map(([k, v]) => {
          const value =
            v !== null && typeof v === 'object'
              ? Object.entries(v)
                  .map(([a, b]) => `${a} ${typeof b === 'object' ? JSON.stringify(b) : b}`)
                  .join(', ')
              : v;
          return h('li', {}, `${k}: ${value}`);
        }),
      );
      show(Number(s.permitJoinSeconds ?? 0));
    } catch (err) {
      status.replaceChildren(h('li', {}, `Status unavailable: ${err.message}`));
    }
  };
  const permit = async (n) => {
    try {
      const r = await api.send('POST', '/zigbee/permit-join', { seconds: n });
      show(Number(r.seconds ?? 0));
      await refresh();
    } catch (err) {
      api.say(`Permit-join failed: ${err.message}`, true);
    }
  };

  // A device that joins only with its install code (printed on it or in its QR code): the hub checks
  // the code's CRC, gives the trust centre the key derived from it, and opens joining.
  const icIeee = h('input', { id: 'zigbee-ic-ieee', placeholder: '0x00124b0000000000', size: '20' });
  const icCode = h('input', {
    id: 'zigbee-ic-code',
    placeholder: 'install code (hex)',
    size: '44',
    autocomplete: 'off',
  });
  const addByCode = async () => {
    try {
      const r = await api.send('POST', '/zigbee/install-code', {
        ieee: icIeee.value.trim(),
        code: icCode.value.trim(),
        seconds: Number(seconds.value),
      });
      icCode.value = '';
      api.say(`${r.ieee} may join with its install code: power it on or reset it now.`);
      show(Number(r.seconds ?? 0));
    } catch (err) {
      api.say(`Install code refused: ${err.message}`, true);
    }
  };

  // The leave request is sent; the device is forgotten whether or not it answers (README: removing).
  const remove = async (d, name) => {
    if (
      !confirm(
        `Remove ${name} from the Zigbee network? The hub asks it to leave and forgets it even if it does ` +
          'not answer. Its light or sensor stays in the site until you delete it there.',
      )
    )
      return;
    try {
      const r = await api.send('DELETE', `/zigbee/devices/${encodeURIComponent(d.ieee)}`);
      api.say(
        r.confirmed
          ? `Removed ${name}: it left the network.`
          : `Removed ${name}, but it did not answer the leave request: reset it before pairing it again.`,
      );
    } catch (err) {
      api.say(`Removing ${name} failed: ${err.message}`, true);
    }
    await Promise.all([loadDevices(), refresh()]);
  };

  const loadDevices = async () => {
    let list;
    try {
      list = await api.get('/zigbee/devices');
    } catch (err) {
      devices.replaceChildren(h('tr', {}, h('td', { colspan: '3' }, `Devices unavailable: ${err.message}`)));
      return;
    }
    if (list.length === 0) {
      devices.replaceChildren(h('tr', {}, h('td', { colspan: '3' }, 'No device has joined yet.')));
      return;
    }
    devices.replaceChildren(
      ...list.map((d) => {
        const name = d.model ? `${d.model} (${d.ieee})` : d.ieee;
        return h(
          'tr',
          { 'data-ieee': d.ieee },
          h(
            'td',
            {},
            [d.manufacturer, d.model].filter(Boolean).join(' ') || 'unknown device',
            d.interviewed ? null : [h('br'), 'interview pending'],
          ),
          // The IEEE address may wrap in its middle: a phone keeps the table within its width.
          h(
            'td',
            {},
            d.ieee.slice(0, 10),
            h('wbr'),
            d.ieee.slice(10),
            h('br'),
            `network 0x${d.nwk.toString(16).padStart(4, '0')}`,
          ),
          h(
            'td',
            {},
            h(
              'button',
              { type: 'button', 'aria-label': `Remove ${name}`, onclick: () => remove(d, name) },
              'Remove',
            ),
          ),
        );
      }),
    );
  };

  // Moving from zigbee2mqtt or ZHA: the files of its data directory, read here and sent as their text.
  const pick = (id, accept) => h('input', { id, type: 'file', accept });
  const imports = {
    backup: pick('zigbee-import-backup', '.json,application/json'),
    database: pick('zigbee-import-database', '.db,.json,text/plain'),
    configuration: pick('zigbee-import-configuration', '.yaml,.yml'),
    devicesFile: pick('zigbee-import-devices', '.yaml,.yml'),
  };
  const importNetwork = async () => {
    const backup = imports.backup.files?.[0];
    if (!backup)
      return api.say('Choose coordinator_backup.json (zigbee2mqtt) or the ZHA backup first.', true);
    if (
      !confirm(
        'Move that network onto the stick now plugged in? The network and device table Hearth has now are ' +
          'replaced; the devices keep working without pairing.',
      )
    )
      return;
    try {
      const body = { backup: JSON.parse(await backup.text()) };
      for (const k of ['database', 'configuration', 'devicesFile']) {
        const f = imports[k].files?.[0];
        if (f) body[k] = await f.text();
      }
      const r = await api.send('POST', '/zigbee/import', body);
      api.say(
        `Imported the network of ${r.source}: ${r.devices} devices, ${r.added} lights and sensors (${r.named} named).`,
      );
    } catch (err) {
      api.say(`Import failed: ${err.message}`, true);
    }
    await Promise.all([loadDevices(), refresh()]);
  };

  const restore = async () => {
    const f = file.files?.[0];
    if (!f) return api.say('Choose a Zigbee backup file first.', true);
    if (
      !confirm(
        "Replace the Zigbee network and device table with the backup's? The stick is set up again for it " +
          'and the Zigbee driver restarts.',
      )
    )
      return;
    try {
      const r = await api.upload('/zigbee/restore', f, 'application/json');
      api.say(`Restored the Zigbee network with ${r.devices} devices.`);
    } catch (err) {
      api.say(`Restore failed: ${err.message}`, true);
    }
    await Promise.all([loadDevices(), refresh()]);
  };

  root.append(
    status,
    h('h3', {}, 'Pair devices'),
    h('label', { for: 'zigbee-seconds' }, 'Open joining for (seconds)'),
    seconds,
    h(
      'p',
      {},
      h(
        'button',
        { type: 'button', id: 'zigbee-permit', onclick: () => permit(Number(seconds.value)) },
        'Permit join',
      ),
      ' ',
      h('button', { type: 'button', id: 'zigbee-close', onclick: () => permit(0) }, 'Close joining'),
    ),
    countdown,
    h('h4', {}, 'Pair a device by its install code'),
    h('label', { for: 'zigbee-ic-ieee' }, 'IEEE address '),
    icIeee,
    ' ',
    h('label', { for: 'zigbee-ic-code' }, 'Install code '),
    icCode,
    ' ',
    h('button', { type: 'button', id: 'zigbee-ic-add', onclick: addByCode }, 'Add and open joining'),
    table('Devices in the network', ['Device', 'Addresses', 'Actions'], devices),
    h(
      'p',
      {},
      h(
        'button',
        { type: 'button', onclick: () => Promise.all([loadDevices(), refresh()]) },
        'Refresh status and devices',
      ),
    ),
    h('h3', {}, 'Backup'),
    h(
      'p',
      {},
      'The backup holds the network key and the device table: keep it somewhere safe. Restoring it ' +
        'moves the network to a replacement stick without pairing every device again.',
    ),
    h(
      'p',
      {},
      h(
        'a',
        { href: api.href('/zigbee/backup'), download: 'hearth-zigbee-backup.json' },
        'Download the Zigbee network backup',
      ),
    ),
    h(
      'p',
      {},
      h(
        'a',
        { href: api.href('/zigbee/backup/open'), download: 'coordinator_backup.json' },
        'Download it in the open format (for zigbee2mqtt or ZHA)',
      ),
    ),
    h('h3', {}, 'Restore'),
    h('label', { for: 'zigbee-restore-file' }, 'Zigbee backup (.json)'),
    file,
    h('p', {}, h('button', { type: 'button', onclick: restore }, 'Restore the Zigbee network')),
    h('h3', {}, 'Import from zigbee2mqtt or ZHA'),
    h(
      'p',
      {},
      "From zigbee2mqtt's data directory: coordinator_backup.json, and for names and models database.db and " +
        'configuration.yaml (with devices.yaml if the configuration names one). From ZHA: its backup file alone.',
    ),
    h(
      'label',
      { for: 'zigbee-import-backup' },
      'Coordinator backup (coordinator_backup.json or the ZHA backup)',
    ),
    imports.backup,
    h('label', { for: 'zigbee-import-database' }, 'Device database (database.db, optional)'),
    imports.database,
    h('label', { for: 'zigbee-import-configuration' }, 'configuration.yaml (optional)'),
    imports.configuration,
    h('label', { for: 'zigbee-import-devices' }, 'devices.yaml (optional)'),
    imports.devicesFile,
    h('p', {}, h('button', { type: 'button', onclick: importNetwork }, 'Import the network')),
  );
  await Promise.all([refresh(), loadDevices()]);
}
