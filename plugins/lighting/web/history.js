// The history view: what each light and sensor did over the last day or week, drawn as a timeline
// (chart.js) with the same changes as a list for screen readers and exact times.
import { timeline } from './chart.js';
import { lang, t } from './i18n.js';
import { readingsLine, readingText, SHOWN } from './readings.js';
import { el, orEmpty } from './view.js';
import { eventText, saveProblem } from './words.js';

const HOUR = 3600_000;
const RANGES = new Map([
  ['day', 24 * HOUR],
  ['week', 7 * 24 * HOUR],
]);
// One page of the API is at most 1000 entries; a week of a busy home may need a few.
const MAX_PAGES = 20;

export function historyView(app, root) {
  const { state, call, toast } = app;
  let range = 'day';
  const chartNode = el('div', { id: 'history-chart' });
  const listNode = el('ol', { class: 'events', id: 'history-list' });
  const picker = el(
    'div',
    { class: 'buttons', role: 'group', 'aria-label': t('range') },
    ...[...RANGES.keys()].map((r) =>
      el(
        'button',
        {
          type: 'button',
          'data-range': r,
          'aria-pressed': String(r === range),
          onclick: () => {
            range = r;
            for (const b of picker.children)
              b.setAttribute('aria-pressed', String(b.dataset.range === range));
            load();
          },
        },
        t(`range_${r}`),
      ),
    ),
  );
  root.append(
    el(
      'section',
      { 'aria-labelledby': 'h-history' },
      el('h2', { id: 'h-history' }, t('navHistory')),
      picker,
      chartNode,
      el('details', {}, el('summary', {}, t('historyAsList')), listNode),
    ),
  );

  async function fetchRange(from) {
    const entries = [];
    let to = '';
    for (let page = 0; page < MAX_PAGES; page++) {
      const batch = await call(
        'GET',
        `/history?from=${encodeURIComponent(new Date(from).toISOString())}&limit=1000${to}`,
      );
      entries.push(...batch);
      if (batch.length < 1000) break;
      to = `&to=${encodeURIComponent(batch.at(-1).at)}`;
    }
    return entries;
  }

  async function load() {
    const now = Date.now();
    const from = now - RANGES.get(range);
    let entries;
    try {
      entries = await fetchRange(from);
    } catch (err) {
      toast(saveProblem(err));
      return;
    }
    draw(entries.reverse(), from, now);
  }

  function ticksFor(from, to) {
    const step = range === 'day' ? 3 * HOUR : 24 * HOUR;
    const first = new Date(from);
    first.setMinutes(0, 0, 0);
    if (range === 'week') first.setHours(0);
    const ticks = [];
    for (let at = first.getTime() + step; at < to; at += step) {
      const d = new Date(at);
      ticks.push({
        at,
        text:
          range === 'day'
            ? d.toLocaleTimeString(lang, { hour: '2-digit', minute: '2-digit' })
            : d.toLocaleDateString(lang, { weekday: 'short', day: 'numeric' }),
      });
    }
    return ticks;
  }

  /** `entries` oldest first. A light's bar runs from each change to its next change (or now). */
  function draw(entries, from, to) {
    const rows = [];
    for (const light of state.lights.values()) {
      const changes = entries.filter((e) => e.type === 'light' && e._id === light._id);
      const spans = changes.map((e, i) => ({
        from: new Date(e.at).getTime(),
        to: changes[i + 1] ? new Date(changes[i + 1].at).getTime() : to,
        bri: e.on ? e.bri : 0,
      }));
      rows.push({ label: light.name, kind: 'light', spans });
    }
    for (const sensor of state.sensors) {
      const events = entries
        .filter((e) => e.type === 'sensor' && e._id === sensor._id)
        .map((e) => ({ at: new Date(e.at).getTime(), text: eventText(e.event) }));
      if (events.length || !entries.some((e) => e.type === 'reading' && e._id === sensor._id))
        rows.push({ label: sensor.name, kind: 'sensor', events });
      for (const [name] of SHOWN) {
        const points = entries
          .filter((e) => e.type === 'reading' && e._id === sensor._id && typeof e.readings[name] === 'number')
          .map((e) => ({
            at: new Date(e.at).getTime(),
            value: e.readings[name],
            text: readingText(name, e.readings[name]),
          }));
        if (points.length)
          rows.push({ label: `${sensor.name} · ${t(`reading_${name}`)}`, kind: 'reading', points });
      }
    }
    const title = t('historyTitle', {
      lights: state.lights.size,
      sensors: state.sensors.length,
      range: t(`range_${range}`),
    });
    chartNode.replaceChildren(
      rows.length
        ? timeline({ rows, from, to, ticks: ticksFor(from, to), title })
        : el('p', { class: 'muted' }, t('noLights')),
    );
    const nameOf = (e) =>
      (e.type === 'light'
        ? state.lights.get(e._id)?.name
        : state.sensors.find((s) => s._id === e._id)?.name) ?? '?';
    const latest = entries.slice(-100).reverse();
    listNode.replaceChildren(
      ...orEmpty(
        latest.map((e) => {
          const at = new Date(e.at);
          const what =
            e.type === 'light'
              ? e.on
                ? `${t('on')} ${Math.max(1, Math.round((e.bri * 100) / 255))} %`
                : t('off')
              : e.type === 'reading'
                ? readingsLine(e.readings)
                : eventText(e.event);
          return el(
            'li',
            {},
            el(
              'time',
              { datetime: e.at },
              at.toLocaleString(lang, { weekday: 'short', hour: '2-digit', minute: '2-digit' }),
            ),
            ` ${nameOf(e)}: ${what}`,
          );
        }),
        t('noHistory'),
      ),
    );
  }

  // While the view is shown, new changes appear: one reload a few seconds after the last one (a dragged
  // dimmer is one reload, and the hub merges its steps into one entry anyway).
  let again;
  const soon = () => {
    if (root.hidden) return;
    clearTimeout(again);
    again = setTimeout(load, 3000);
  };
  for (const name of ['setLightState', 'eventSourceKey', 'sensorReadings'])
    app.events.addEventListener(name, soon);

  return {
    open: load,
    render() {},
  };
}
