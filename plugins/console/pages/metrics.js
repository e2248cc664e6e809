// Key metrics as charts: the hub's metrics (GET /admin/metrics, the exposition format) sampled every 5 s
// while the page is open, drawn as inline SVG line charts of the last 10 minutes. Counters are shown as
// rates per second. No chart library; each chart has a text summary for screen readers.
const SAMPLES = 120;
const CHARTS = [
  { metric: 'process_resident_memory_bytes', title: 'Memory (resident)', unit: 'MB', scale: 1 / 1e6 },
  { metric: 'nodejs_heap_size_used_bytes', title: 'JavaScript heap used', unit: 'MB', scale: 1 / 1e6 },
  { metric: 'nodejs_eventloop_lag_max_seconds', title: 'Event loop lag (max)', unit: 'ms', scale: 1000 },
  { metric: 'process_cpu_seconds_total', title: 'CPU', unit: '%', scale: 100, rate: true },
  { metric: 'hearth_http_request_duration_seconds_count', title: 'HTTP requests', unit: '/s', rate: true },
  { metric: 'hearth_lighting_commands_total', title: 'Light commands', unit: '/s', rate: true },
  { metric: 'hearth_lighting_ws_subscribers', title: 'Open app connections', unit: '' },
  { metric: 'hearth_store_writes_total', title: 'Store writes', unit: '/s', rate: true },
];

/** Sums the samples of each metric name over its labels: `name → value`. */
export function parseExposition(text) {
  const sums = new Map();
  for (const row of text.split('\n')) {
    if (!row || row.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)/.exec(row);
    if (!m) continue;
    const value = Number(m[3]);
    if (Number.isFinite(value)) sums.set(m[1], (sums.get(m[1]) ?? 0) + value);
  }
  return sums;
}

const NS = 'http://www.w3.org/2000/svg';
function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  node.append(...children);
  return node;
}

function lineChart(points, title) {
  const w = 320;
  const hgt = 90;
  const max = Math.max(...points.map((p) => p.v), 1e-9);
  const first = points[0]?.t ?? 0;
  const span = Math.max(1, (points.at(-1)?.t ?? 1) - first);
  const xy = points.map(
    (p) => `${((p.t - first) / span) * (w - 4) + 2},${hgt - 4 - (p.v / max) * (hgt - 12)}`,
  );
  return svg(
    'svg',
    { viewBox: `0 0 ${w} ${hgt}`, class: 'chart', role: 'img', 'aria-label': title },
    svg('title', {}, title),
    svg('line', { x1: 0, x2: w, y1: hgt - 4, y2: hgt - 4, class: 'axis' }),
    svg('polyline', { points: xy.join(' '), class: 'series' }),
  );
}

export async function render(root, api) {
  const { h } = api;
  const history = new Map(CHARTS.map((c) => [c.metric, []]));
  let previous = null;
  const grid = h('div', { class: 'charts', id: 'metric-charts' });

  const fmt = (v) => (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(2));

  function draw() {
    grid.replaceChildren(
      ...CHARTS.filter((c) => history.get(c.metric).length).map((c) => {
        const points = history.get(c.metric);
        const now = points.at(-1).v;
        const summary = `${c.title}: now ${fmt(now)} ${c.unit}, highest ${fmt(Math.max(...points.map((p) => p.v)))} ${c.unit} over ${points.length} samples`;
        return h(
          'figure',
          { 'data-metric': c.metric },
          h('figcaption', {}, `${c.title} `, h('strong', {}, `${fmt(now)} ${c.unit}`)),
          lineChart(points, summary),
        );
      }),
    );
  }

  async function sample() {
    if (!root.isConnected) return;
    try {
      const res = await fetch(api.href('/metrics'));
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const now = Date.now() / 1000;
      const values = parseExposition(await res.text());
      for (const c of CHARTS) {
        if (!values.has(c.metric)) continue;
        let v = values.get(c.metric);
        if (c.rate) {
          const before = previous?.values.get(c.metric);
          if (before === undefined) continue;
          v = Math.max(0, (v - before) / Math.max(0.001, now - previous.at));
        }
        const list = history.get(c.metric);
        list.push({ t: now, v: v * (c.scale ?? 1) });
        if (list.length > SAMPLES) list.shift();
      }
      previous = { at: now, values };
      draw();
    } catch (err) {
      api.say(`Metrics: ${err.message}`, true);
    }
    // The second sample comes soon, so rates show without waiting a whole period.
    setTimeout(sample, previous && history.get(CHARTS[0].metric).length > 1 ? 5000 : 1000);
  }

  root.append(h('p', {}, 'Sampled every 5 seconds while this page is open; the last 10 minutes.'), grid);
  await sample();
}
