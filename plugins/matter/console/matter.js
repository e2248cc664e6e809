// Console page of the matter plugin: one row per Matter bridge (site, port, whether commissioned, the
// commissioning window), "Pair a controller" opening the window and showing the QR code and the 11-digit
// manual code while it is open, and the controllers (fabrics) of each bridge, each removable.
export async function render(root, api) {
  const { h, button, table } = api;
  const rows = h('tbody');
  const pairing = h('div', { id: 'matter-pairing' });
  const fabrics = h('div', { id: 'matter-fabrics' });

  const grouped = (code) => `${code.slice(0, 4)}-${code.slice(4, 7)}-${code.slice(7)}`;
  const until = (iso) => new Date(iso).toLocaleTimeString();

  async function showCodes(b) {
    const img = h('img', {
      class: 'qr',
      src: await api.qr(b.qrPayload),
      alt: `Matter QR code of the bridge of site ${b.site}`,
    });
    pairing.replaceChildren(
      h('h3', {}, 'Pair a controller'),
      h(
        'p',
        {},
        'In Apple Home, Google Home, Alexa or Home Assistant choose “Add accessory” or “Add Matter device” and scan this code, or type the manual code.',
      ),
      img,
      h(
        'p',
        { class: 'secret' },
        'Manual code: ',
        h('strong', { id: 'matter-code' }, grouped(b.manualPairingCode)),
      ),
      h('p', {}, `The window closes by itself at ${until(b.windowOpenUntil)}.`),
    );
    api.say(`Commissioning window open until ${until(b.windowOpenUntil)}. The code is shown below.`);
  }

  function showFabrics(b) {
    fabrics.replaceChildren(
      h('h3', {}, `Controllers of site ${b.site}`),
      b.fabrics.length === 0
        ? h('p', {}, 'No controller has added this bridge yet.')
        : table(
            `Controllers (Matter fabrics) of the bridge of site ${b.site}`,
            ['Fabric', 'Vendor', 'Label', 'Actions'],
            h(
              'tbody',
              {},
              ...b.fabrics.map((f) =>
                h(
                  'tr',
                  { 'data-fabric': String(f.fabricIndex) },
                  h('td', {}, String(f.fabricIndex)),
                  h('td', {}, `0x${f.vendorId.toString(16).padStart(4, '0')}`),
                  h('td', {}, f.label || '—'),
                  h(
                    'td',
                    {},
                    button('Remove', `Remove controller ${f.label || f.fabricIndex}`, async () => {
                      if (!confirm(`Remove controller “${f.label || f.fabricIndex}”? It loses this bridge.`))
                        return;
                      await api.send(
                        'DELETE',
                        `/matter/${encodeURIComponent(b.site)}/fabrics/${f.fabricIndex}`,
                      );
                      api.say(`Controller ${f.label || f.fabricIndex} removed.`);
                      await load();
                    }),
                  ),
                ),
              ),
            ),
          ),
    );
  }

  async function load() {
    const { bridges } = await api.get('/matter');
    rows.replaceChildren(
      ...bridges.map((b) =>
        h(
          'tr',
          { 'data-site': b.site },
          h('td', {}, b.site),
          h('td', {}, `UDP ${b.port}`),
          h('td', {}, b.commissioned ? `${b.fabrics.length} controller(s)` : 'not yet'),
          h('td', {}, b.windowOpenUntil ? `open until ${until(b.windowOpenUntil)}` : 'closed'),
          h(
            'td',
            {},
            button('Pair a controller', `Pair a controller with the bridge of site ${b.site}`, async () => {
              const opened = await api.send('POST', `/matter/${encodeURIComponent(b.site)}/window`);
              await showCodes(opened);
              await load();
            }),
            ' ',
            b.windowOpenUntil
              ? button('Close the window', `Close the pairing window of site ${b.site}`, async () => {
                  await api.send('DELETE', `/matter/${encodeURIComponent(b.site)}/window`);
                  api.say(`The pairing window of site ${b.site} is closed.`);
                  await load();
                })
              : null,
            b.windowOpenUntil ? ' ' : null,
            button('Controllers', `Controllers of the bridge of site ${b.site}`, async () => showFabrics(b)),
          ),
        ),
      ),
    );
    const open = bridges.find((b) => b.windowOpenUntil && b.qrPayload);
    if (open) await showCodes(open);
    else pairing.replaceChildren();
  }

  root.append(
    h(
      'p',
      {},
      'Each site listed is a Matter bridge: its lights and sensors appear in the controllers that add it.',
    ),
    table('Matter bridges', ['Site', 'Port', 'Commissioned', 'Window', 'Actions'], rows),
    pairing,
    fabrics,
  );
  await load();
}
