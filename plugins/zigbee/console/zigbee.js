// Zigbee: the stick's status and pairing (permit-join) with a countdown of the time joining stays open.
export async function render(root, api) {
  const { h } = api;
  const status = h('pre', { id: 'zigbee-status' }, '…');
  const seconds = h('input', { id: 'zigbee-seconds', type: 'number', min: '1', max: '254', value: '120' });
  const countdown = h('p', { id: 'zigbee-countdown' }, '');
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
      status.textContent = Object.entries(s)
        .map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : v}`)
        .join('\n');
      show(Number(s.permitJoinSeconds ?? 0));
    } catch (err) {
      status.textContent = `Status unavailable: ${err.message}`;
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
  );
  await refresh();
}
