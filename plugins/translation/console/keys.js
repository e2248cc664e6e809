// Console page of the translation plugin: developer keys (create, deactivate, character limits), usage by
// key and day as a chart and a table, and usage by custom tag, for the last 30 days.
export async function render(root, api) {
  const { h } = api;
  const keys = h('tbody');
  const usage = h('tbody');
  const shown = h('div', { id: 'new-key' });
  const day = (d) => d.toISOString().slice(0, 10);

  async function load() {
    const list = await api.own.get('/developer-keys');
    keys.replaceChildren(
      ...list.map((k) =>
        h(
          'tr',
          { 'data-key': k.key_id },
          h('td', {}, k.label),
          h('td', {}, k.creation_time?.slice(0, 10) ?? ''),
          h('td', {}, k.is_deactivated ? 'deactivated' : 'active'),
          h('td', {}, k.usage_limits?.characters == null ? 'unlimited' : String(k.usage_limits.characters)),
          h('td', {}, k.is_deactivated ? '' : limitForm(k)),
          h(
            'td',
            {},
            k.is_deactivated
              ? ''
              : h(
                  'button',
                  {
                    type: 'button',
                    'aria-label': `Deactivate key ${k.label}`,
                    onclick: async () => {
                      if (!confirm(`Deactivate ${k.label}? This cannot be undone.`)) return;
                      await api.own.send('PUT', '/developer-keys/deactivate', { key_id: k.key_id });
                      api.say(`Deactivated ${k.label}.`);
                      await load();
                    },
                  },
                  'Deactivate',
                ),
          ),
        ),
      ),
    );
    const end = new Date();
    const start = new Date(end.getTime() - 30 * 86_400_000);
    const report = (
      await api.own.get(`/analytics?start_date=${day(start)}&end_date=${day(end)}&group_by=key_and_day`)
    ).usage_report;
    chart.replaceChildren(usageChart(report.key_and_day_usages ?? [], start, end));
    const tags = (await api.own.get(`/analytics/custom-tags?start_date=${day(start)}&end_date=${day(end)}`))
      .custom_tag_usage_report.usage;
    tagRows.replaceChildren(
      ...(tags.length
        ? tags.map((u) =>
            h('tr', {}, h('td', {}, u.custom_tag), h('td', {}, String(u.breakdown.total_characters))),
          )
        : [h('tr', {}, h('td', { colspan: 2 }, 'No tagged translations in this time.'))]),
    );
    usage.replaceChildren(
      ...(report.key_and_day_usages ?? []).map((u) =>
        h(
          'tr',
          {},
          h('td', {}, u.usage_date.slice(0, 10)),
          h('td', {}, u.api_key_label ?? ''),
          h('td', {}, String(u.usage.total_characters)),
        ),
      ),
    );
  }

  const chart = h('div', { id: 'usage-chart' });
  const tagRows = h('tbody');

  /** A key's character limit: a number, or empty for no limit. */
  function limitForm(k) {
    const id = `limit-${k.key_id}`;
    const input = h('input', {
      id,
      type: 'number',
      min: 0,
      step: 1,
      value: k.usage_limits?.characters ?? '',
      'aria-label': `Character limit of ${k.label} (empty: no limit)`,
    });
    return h(
      'form',
      {
        class: 'inline',
        onsubmit: async (e) => {
          e.preventDefault();
          try {
            const characters = input.value === '' ? null : Number(input.value);
            await api.own.send('PUT', '/developer-keys/limits', { key_id: k.key_id, characters });
            api.say(
              characters === null
                ? `${k.label} has no limit now.`
                : `${k.label} may use ${characters} characters.`,
            );
            await load();
          } catch (err) {
            api.say(err.message, true);
          }
        },
      },
      input,
      ' ',
      h('button', { type: 'submit', 'aria-label': `Set the limit of ${k.label}` }, 'Set'),
    );
  }

  const label = h('input', { id: 'key-label', required: true, maxlength: 100 });
  root.append(
    h(
      'table',
      {},
      h('caption', {}, 'Developer keys'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...['Label', 'Created', 'State', 'Character limit', 'New limit', 'Actions'].map((t) =>
            h('th', { scope: 'col' }, t),
          ),
        ),
      ),
      keys,
    ),
    h(
      'form',
      {
        onsubmit: async (e) => {
          e.preventDefault();
          try {
            const k = await api.own.send('POST', '/developer-keys', { label: label.value });
            label.value = '';
            shown.replaceChildren(
              h('h3', {}, `Created ${k.label}`),
              h('p', {}, 'The key is shown only now:'),
              h('p', { class: 'secret' }, k.key),
            );
            api.say(`Created ${k.label}; the key is shown below.`);
            await load();
          } catch (err) {
            api.say(err.message, true);
          }
        },
      },
      h('h3', {}, 'New developer key'),
      h('label', { for: 'key-label' }, 'Label'),
      label,
      ' ',
      h('button', { type: 'submit' }, 'Create'),
    ),
    shown,
    h('h3', {}, 'Characters translated per day, last 30 days'),
    chart,
    h(
      'table',
      {},
      h('caption', {}, 'Characters translated in the last 30 days, by key and day'),
      h('thead', {}, h('tr', {}, ...['Day', 'Key', 'Characters'].map((t) => h('th', { scope: 'col' }, t)))),
      usage,
    ),
    h(
      'table',
      {},
      h('caption', {}, 'Characters by custom tag, last 30 days'),
      h('thead', {}, h('tr', {}, ...['Custom tag', 'Characters'].map((t) => h('th', { scope: 'col' }, t)))),
      tagRows,
    ),
  );
  await load();
}

const NS = 'http://www.w3.org/2000/svg';
const svg = (tag, attrs = {}, ...children) => {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  node.append(...children);
  return node;
};

/** Bars of characters per day (all keys), one per day of the range; each bar names its day and keys. */
function usageChart(rows, start, end) {
  const days = [];
  for (
    let t = Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate());
    t <= end.getTime();
    t += 86_400_000
  )
    days.push(new Date(t).toISOString().slice(0, 10));
  const perDay = new Map(days.map((d) => [d, { total: 0, keys: [] }]));
  for (const r of rows) {
    const d = perDay.get(r.usage_date.slice(0, 10));
    if (!d) continue;
    d.total += r.usage.total_characters;
    d.keys.push(`${r.api_key_label ?? ''} ${r.usage.total_characters}`);
  }
  const max = Math.max(1, ...[...perDay.values()].map((d) => d.total));
  const w = 600;
  const hgt = 140;
  const bw = w / days.length;
  const total = [...perDay.values()].reduce((a, d) => a + d.total, 0);
  const chart = svg('svg', {
    viewBox: `0 0 ${w} ${hgt + 16}`,
    class: 'chart',
    role: 'img',
    'aria-label': `Characters per day: ${total} in ${days.length} days, most on one day ${max === 1 && total === 0 ? 0 : max}`,
  });
  days.forEach((d, i) => {
    const { total: v, keys } = perDay.get(d);
    const barH = (v / max) * (hgt - 4);
    chart.append(
      svg(
        'rect',
        { class: 'bar', x: i * bw + 1, y: hgt - barH, width: Math.max(1, bw - 2), height: barH },
        svg('title', {}, `${d}: ${v} characters${keys.length ? ` (${keys.join(', ')})` : ''}`),
      ),
    );
    if (i % 7 === 0) chart.append(svg('text', { x: i * bw, y: hgt + 13, class: 'tick' }, d.slice(5)));
  });
  return chart;
}
