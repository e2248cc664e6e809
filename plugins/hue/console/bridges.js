// Console page of the hue plugin: paired bridges (pair again, remove, their scenes with recall), bridges
// found on the LAN, and pairing with a clear "press the link button" prompt while the hub waits for it.
// Application keys never reach the browser.
export async function render(root, api) {
  const { h, table } = api;
  const rows = h('tbody');
  const found = h('ul', { id: 'hue-found' });
  const status = h('p', { id: 'hue-status', role: 'status' });
  const scenesTitle = h('h3', { id: 'hue-scenes-title', tabindex: '-1' }, 'Bridge scenes');
  const scenes = h('div', { id: 'hue-scenes' }, h('p', {}, 'Choose a connected bridge’s scenes above.'));

  // A fingerprint may wrap after each colon, so a phone does not scroll sideways for it.
  const breakable = (hex) => hex.split(':').flatMap((part, i) => (i === 0 ? [part] : [':', h('wbr'), part]));

  /** Shows an error both on the page and in the live region. */
  const fail = (err) => {
    status.textContent = err.message;
    api.say(err.message, true);
  };

  // Pairing a paired bridge again (a new key, and its address now): one request that answers when the
  // link button was pressed or the wait ran out; the expected bridge id stops a stranger answering there.
  async function pairAgain(b, button) {
    button.disabled = true;
    const prompt = `Press the link button on the Hue bridge ${b.bridgeId} at ${b.host} now. Waiting for it…`;
    status.textContent = prompt;
    api.say(prompt);
    try {
      const paired = await api.send('POST', '/hue/bridges', {
        host: b.host,
        port: b.port,
        site: b.site,
        bridgeId: b.bridgeId,
      });
      const how =
        paired.trust === 'pinned' ? ` Its certificate was pinned (SHA-256 ${paired.fingerprint256}).` : '';
      status.textContent = `Paired bridge ${paired.bridgeId} again.${how}`;
      api.say(`Paired bridge ${paired.bridgeId} again.`);
      await load();
    } catch (err) {
      fail(err);
    } finally {
      button.disabled = false;
    }
  }

  async function showScenes(bridgeId) {
    try {
      const list = await api.get(`/hue/bridges/${encodeURIComponent(bridgeId)}/scenes`);
      scenesTitle.textContent = `Scenes of bridge ${bridgeId}`;
      scenes.replaceChildren(
        list.length === 0
          ? h('p', {}, 'This bridge has no scenes.')
          : h(
              'table',
              {},
              h('caption', {}, `Scenes kept on bridge ${bridgeId}`),
              h(
                'thead',
                {},
                h(
                  'tr',
                  {},
                  h('th', { scope: 'col' }, 'Scene'),
                  h('th', { scope: 'col' }, 'Room or zone'),
                  h('th', { scope: 'col' }, 'Actions'),
                ),
              ),
              h(
                'tbody',
                {},
                ...list.map((s) => {
                  const label = s.group ? `${s.group}: ${s.name}` : s.name;
                  return h(
                    'tr',
                    { 'data-scene': s.id },
                    h('td', {}, s.name),
                    h('td', {}, s.group ?? '—'),
                    h(
                      'td',
                      {},
                      h(
                        'button',
                        {
                          type: 'button',
                          'aria-label': `Recall ${label}`,
                          onclick: async () => {
                            try {
                              await api.send(
                                'POST',
                                `/hue/bridges/${encodeURIComponent(bridgeId)}/scenes/${encodeURIComponent(s.id)}/recall`,
                              );
                              api.say(`Recalled ${label} on bridge ${bridgeId}.`);
                            } catch (err) {
                              api.say(`Recall failed: ${err.message}`, true);
                            }
                          },
                        },
                        'Recall',
                      ),
                    ),
                  );
                }),
              ),
            ),
      );
      api.say(`${list.length === 1 ? '1 scene' : `${list.length} scenes`} on bridge ${bridgeId}.`);
      scenesTitle.focus();
    } catch (err) {
      api.say(`Scenes unavailable: ${err.message}`, true);
    }
  }

  async function load() {
    const bridges = await api.get('/hue/bridges');
    rows.replaceChildren(
      ...bridges.map((b) => {
        const again = h(
          'button',
          { type: 'button', 'aria-label': `Pair bridge ${b.bridgeId} again` },
          'Pair again',
        );
        again.addEventListener('click', () => pairAgain(b, again));
        return h(
          'tr',
          { 'data-bridge': b.bridgeId },
          h('td', {}, b.bridgeId, h('br'), `${b.host}:${b.port}`),
          h(
            'td',
            {},
            b.connected ? 'connected' : 'not connected',
            h('br'),
            ...(b.trust === 'pinned'
              ? ['pinned certificate (SHA-256 ', ...breakable(b.fingerprint256), ')']
              : ['verified by a trusted root']),
          ),
          h(
            'td',
            {},
            h(
              'button',
              {
                type: 'button',
                'aria-label': `Scenes of bridge ${b.bridgeId}`,
                onclick: () => showScenes(b.bridgeId),
              },
              'Scenes',
            ),
            ' ',
            again,
            ' ',
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
                  try {
                    await api.send('DELETE', `/hue/bridges/${b.bridgeId}`);
                    api.say(`Removed bridge ${b.bridgeId}.`);
                  } catch (err) {
                    api.say(`Removing bridge ${b.bridgeId} failed: ${err.message}`, true);
                  }
                  await load();
                },
              },
              'Remove',
            ),
          ),
        );
      }),
    );
  }

  const host = h('input', { id: 'hue-host', name: 'host', required: true, maxlength: 253 });
  const port = h('input', { id: 'hue-port', name: 'port', type: 'number', min: 1, max: 65535, value: 443 });
  const site = h('input', { id: 'hue-site', name: 'site', required: true, maxlength: 100, value: 'Home' });
  const bridgeId = h('input', {
    id: 'hue-bridge-id',
    name: 'bridgeId',
    maxlength: 23,
    autocomplete: 'off',
    'aria-describedby': 'hue-bridge-id-help',
  });
  const pairButton = h('button', { type: 'submit' }, 'Pair');

  // Pairing is a job on the hub: it keeps waiting if this page is closed or the hub restarts.
  async function pair(e) {
    e.preventDefault();
    pairButton.disabled = true;
    try {
      let job = await api.send('POST', '/hue/pairings', {
        host: host.value,
        port: Number(port.value),
        site: site.value,
        ...(bridgeId.value.trim() ? { bridgeId: bridgeId.value.trim() } : {}),
      });
      api.say(`Press the link button on the Hue bridge at ${job.host} now.`);
      while (job.state === 'waiting') {
        const left = Math.max(0, Math.round((Date.parse(job.deadline) - Date.now()) / 1000));
        status.textContent = `Press the link button on the Hue bridge at ${job.host} now. Waiting for it (${left} s left)…`;
        await new Promise((r) => setTimeout(r, 1000));
        job = await api.send('GET', `/hue/pairings/${encodeURIComponent(job.id)}`);
      }
      if (job.state === 'failed') throw new Error(job.error?.message ?? 'pairing failed');
      const how =
        job.trust === 'pinned' ? ` Its certificate was pinned (SHA-256 ${job.fingerprint256}).` : '';
      status.textContent = `Paired bridge ${job.bridgeId}.${how}`;
      api.say(`Paired bridge ${job.bridgeId}.`);
      await load();
    } catch (err) {
      fail(err);
    } finally {
      pairButton.disabled = false;
    }
  }

  root.append(
    table('Hue bridges', ['Bridge and address', 'Link and trust', 'Actions'], rows),
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
                        bridgeId.value = b.bridgeId;
                      },
                    },
                    `${b.name} (${b.bridgeId}) at ${b.host}${b.paired ? ', paired' : ''}`,
                  ),
                ),
              ),
            );
            api.say(
              list.length === 0
                ? 'No bridge answered; enter its address.'
                : list.length === 1
                  ? '1 bridge found.'
                  : `${list.length} bridges found.`,
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
      h('label', { for: 'hue-bridge-id' }, 'Bridge id (optional)'),
      bridgeId,
      h(
        'p',
        { id: 'hue-bridge-id-help' },
        'When given, the hub pairs only the bridge whose certificate carries this id (16 hex digits).',
      ),
      pairButton,
    ),
    status,
    scenesTitle,
    h('p', {}, 'Each scene is also a scene of the bridge’s site. Recall applies it on the bridge at once.'),
    scenes,
  );
  await load();
}
