// The live log tail: the hub's latest log lines (already scrubbed of secrets), polled every 2 s while the
// page is open, newest at the bottom; filter by level, pause. The list is not a live region: a busy log
// read out line by line would drown everything else.
const LEVELS = new Map([
  [10, 'trace'],
  [20, 'debug'],
  [30, 'info'],
  [40, 'warn'],
  [50, 'error'],
  [60, 'fatal'],
]);
const KEEP = 500;

export async function render(root, api) {
  const { h } = api;
  let after = 0;
  let paused = false;
  const list = h('ol', { class: 'log', id: 'log-lines', tabindex: 0, 'aria-label': 'Log lines' });
  const level = h(
    'select',
    { id: 'log-level', onchange: () => filter() },
    ...[...LEVELS].map(([n, name]) => h('option', { value: n, selected: n === 30 }, `${name} and above`)),
  );
  const pause = h(
    'button',
    {
      type: 'button',
      'aria-pressed': 'false',
      onclick: () => {
        paused = !paused;
        pause.setAttribute('aria-pressed', String(paused));
        api.say(paused ? 'Log paused.' : 'Log follows again.');
      },
    },
    'Pause',
  );

  function filter() {
    for (const li of list.children) li.hidden = Number(li.dataset.level) < Number(level.value);
  }

  function line(text) {
    let entry;
    try {
      entry = JSON.parse(text);
    } catch {
      entry = { msg: text, level: 30 };
    }
    const { time, level: n, name, msg, pid, hostname, ...rest } = entry;
    const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
    const at = time ? new Date(time).toLocaleTimeString() : '';
    const li = h(
      'li',
      { 'data-level': n ?? 30, class: `lvl-${LEVELS.get(n) ?? 'info'}` },
      h('time', {}, at),
      ` ${LEVELS.get(n) ?? n} ${name ?? ''}: ${msg ?? ''}${extra}`,
    );
    li.hidden = (n ?? 30) < Number(level.value);
    return li;
  }

  async function poll() {
    if (!root.isConnected) return;
    if (!paused) {
      try {
        const got = await api.get(`/log?after=${after}`);
        after = got.lines.at(-1)?.seq ?? after;
        const atEnd = list.scrollTop + list.clientHeight >= list.scrollHeight - 4;
        list.append(...got.lines.map((l) => line(l.line)));
        while (list.children.length > KEEP) list.firstChild.remove();
        if (atEnd) list.scrollTop = list.scrollHeight;
      } catch (err) {
        api.say(`Log: ${err.message}`, true);
      }
    }
    setTimeout(poll, 2000);
  }

  root.append(
    h('p', {}, 'The latest lines the hub logged, as they come. Secrets are removed before a line is kept.'),
    h('p', { class: 'controls' }, h('label', { for: 'log-level' }, 'Show '), level, ' ', pause),
    list,
  );
  await poll();
}
