// The history timeline as inline SVG (no chart library): one row per light — a bar where it was on, its
// opacity the level —, one row per sensor with a tick per event, and one row per sensor reading with its
// values as a line between the row's lowest and highest value. Time runs left to right.
const NS = 'http://www.w3.org/2000/svg';
const WIDTH = 1000;
const LABEL = 170;
const ROW = 30;
const AXIS = 24;

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  node.append(...children);
  return node;
}

/**
 * `rows`: `[{label, kind:"light", spans:[{from, to, bri}]} | {label, kind:"sensor", events:[{at, text}]}
 * | {label, kind:"reading", points:[{at, value, text}]}]`
 * (times in ms); `ticks`: `[{at, text}]` for the axis. `title` names the chart for screen readers.
 */
export function timeline({ rows, from, to, ticks, title }) {
  const height = AXIS + rows.length * ROW + 4;
  const x = (ms) => LABEL + ((Math.min(Math.max(ms, from), to) - from) / (to - from)) * (WIDTH - LABEL - 8);
  const chart = svg('svg', {
    viewBox: `0 0 ${WIDTH} ${height}`,
    class: 'timeline',
    role: 'img',
    'aria-label': title,
  });
  chart.append(svg('title', {}, title));
  for (const tick of ticks) {
    chart.append(
      svg('line', { class: 'grid', x1: x(tick.at), x2: x(tick.at), y1: AXIS - 6, y2: height }),
      svg('text', { x: x(tick.at) + 3, y: AXIS - 10 }, tick.text),
    );
  }
  rows.forEach((row, i) => {
    const y = AXIS + i * ROW;
    chart.append(svg('text', { x: 0, y: y + ROW / 2 + 4 }, row.label));
    if (row.kind === 'light') {
      for (const span of row.spans) {
        if (span.bri <= 0) continue;
        const x1 = x(span.from);
        const rect = svg('rect', {
          class: 'on',
          x: x1,
          y: y + 5,
          width: Math.max(1, x(span.to) - x1),
          height: ROW - 10,
          rx: 3,
          'fill-opacity': (0.35 + (0.65 * span.bri) / 255).toFixed(2),
        });
        chart.append(rect);
      }
    } else if (row.kind === 'reading') {
      const values = row.points.map((p) => p.value);
      const lo = Math.min(...values);
      const span = Math.max(...values) - lo || 1;
      const yOf = (v) => y + ROW - 5 - ((v - lo) / span) * (ROW - 10);
      // Each value holds until the next one (a step line), the last until now.
      const coords = row.points.flatMap((p, i) => {
        const next = row.points[i + 1];
        return [`${x(p.at)},${yOf(p.value)}`, `${next ? x(next.at) : x(to)},${yOf(p.value)}`];
      });
      if (coords.length) chart.append(svg('polyline', { class: 'reading', points: coords.join(' ') }));
      for (const p of row.points) {
        chart.append(
          svg(
            'circle',
            { class: 'reading', cx: x(p.at), cy: yOf(p.value), r: 2.5 },
            svg('title', {}, p.text),
          ),
        );
      }
    } else {
      for (const e of row.events) {
        chart.append(
          svg(
            'rect',
            { class: 'event', x: x(e.at) - 1.5, y: y + 4, width: 3, height: ROW - 8 },
            svg('title', {}, e.text),
          ),
        );
      }
    }
  });
  return chart;
}
