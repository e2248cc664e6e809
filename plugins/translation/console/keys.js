// Console page of the translation plugin: developer keys (create, rename, deactivate, character limits),
// usage by key and day as a chart and a table, and usage by custom tag, for the last 30 days.
export async function render(root, api) {
  const { h, run, button, table } = api;
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
          h('td', { class: 'key-label' }, k.label),
          h('td', {}, k.creation_time?.slice(0, 10) ?? ''),
          h('td', {}, k.is_deactivated ? 'deactivated' : 'active'),
          h('td', {}, k.usage_limits?.characters == null ? 'unlimited' : String(k.usage_limits.characters)),
          h('td', {}, k.is_deactivated ? '' : limitForm(k)),
          h(
            'td',
            {},
            button('Rename', `Rename key ${k.label}`, (e) =>
              // The label is only a name: the key itself stays the same.
              api.rename(e.target.closest('tr').querySelector('.key-label'), k.label, {
                noun: 'label',
                attrs: { required: true },
                save: async (value) => {
                  const renamed = await api.own.send('PUT', '/developer-keys/label', {
                    key_id: k.key_id,
                    label: value,
                  });
                  return `Renamed key ${k.label} to ${renamed.label}.`;
                },
                reload: load,
              }),
            ),
            ' ',
            k.is_deactivated
              ? ''
              : button('Deactivate', `Deactivate key ${k.label}`, async () => {
                  if (!confirm(`Deactivate ${k.label}? This cannot be undone.`)) return;
                  try {
                    await api.own.send('PUT', '/developer-keys/deactivate', { key_id: k.key_id });
                    api.say(`Deactivated ${k.label}.`);
                  } finally {
                    await load();
                  }
                }),
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
    tagRange = `start_date=${day(start)}&end_date=${day(end)}`;
    tagRows.replaceChildren();
    await loadTags(0);
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
  let tagRange = '';
  // The tag report comes in pages (the plugin's analyticsPageSize): further pages on request.
  const moreTags = h('button', { type: 'button', hidden: true }, 'Show more custom tags');

  async function loadTags(pageNo) {
    const report = (await api.own.get(`/analytics/custom-tags?${tagRange}&page=${pageNo}`))
      .custom_tag_usage_report;
    const tags = report.usage;
    tagRows.append(
      ...(tags.length
        ? tags.map((u) =>
            h('tr', {}, h('td', {}, u.custom_tag), h('td', {}, String(u.breakdown.total_characters))),
          )
        : pageNo === 0
          ? [h('tr', {}, h('td', { colspan: 2 }, 'No tagged translations in this time.'))]
          : []),
    );
    moreTags.hidden = report.next_page == null;
    moreTags.onclick = run('Show more custom tags', async () => {
      await loadTags(report.next_page);
      api.say(`${tagRows.children.length} custom tags shown.`);
    });
  }

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
        onsubmit: run(`Limit of ${k.label}`, async () => {
          const characters = input.value === '' ? null : Number(input.value);
          await api.own.send('PUT', '/developer-keys/limits', { key_id: k.key_id, characters });
          api.say(
            characters === null
              ? `${k.label} has no limit now.`
              : `${k.label} may use ${characters} characters.`,
          );
          await load();
        }),
      },
      input,
      ' ',
      h('button', { type: 'submit', 'aria-label': `Set the limit of ${k.label}` }, 'Set'),
    );
  }

  const label = h('input', { id: 'key-label', required: true, maxlength: 100 });
  root.append(
    table('Developer keys', ['Label', 'Created', 'State', 'Character limit', 'New limit', 'Actions'], keys),
    h(
      'form',
      {
        onsubmit: run('New developer key', async () => {
          const k = await api.own.send('POST', '/developer-keys', { label: label.value });
          label.value = '';
          shown.replaceChildren(
            h('h3', {}, `Created ${k.label}`),
            h('p', {}, 'The key is shown only now:'),
            h('p', { class: 'secret' }, k.key),
          );
          api.say(`Created ${k.label}; the key is shown below.`);
          await load();
        }),
      },
      h('h3', {}, 'New developer key'),
      api.label('key-label', 'Label'),
      label,
      ' ',
      h('button', { type: 'submit' }, 'Create'),
    ),
    shown,
    h('h3', {}, 'Characters translated per day, last 30 days'),
    chart,
    table('Characters translated in the last 30 days, by key and day', ['Day', 'Key', 'Characters'], usage),
    table('Characters by custom tag, last 30 days', ['Custom tag', 'Characters'], tagRows),
    h('p', {}, moreTags),
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

// Bar colours per key, told apart by shade and by order (the legend lists keys bottom to top).
const PALETTE = ['#1f6fb5', '#c15c17', '#2e7d32', '#8e24aa', '#6d4c41', '#00838f'];

/** Stacked bars: characters per day, one segment per key; each segment names its day, key and count. */
function usageChart(rows, start, end) {
  const days = [];
  for (
    let t = Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate());
    t <= end.getTime();
    t += 86_400_000
  )
    days.push(new Date(t).toISOString().slice(0, 10));
  const keys = [...new Set(rows.map((r) => r.api_key_label ?? r.api_key ?? ''))];
  const perDay = new Map(days.map((d) => [d, new Map()]));
  for (const r of rows) {
    const d = perDay.get(r.usage_date.slice(0, 10));
    const key = r.api_key_label ?? r.api_key ?? '';
    if (d) d.set(key, (d.get(key) ?? 0) + r.usage.total_characters);
  }
  const totals = [...perDay.values()].map((m) => [...m.values()].reduce((a, b) => a + b, 0));
  const max = Math.max(1, ...totals);
  const total = totals.reduce((a, b) => a + b, 0);
  const w = 600;
  const hgt = 140;
  const bw = w / days.length;
  const chart = svg('svg', {
    viewBox: `0 0 ${w} ${hgt + 16}`,
    class: 'chart',
    role: 'img',
    'aria-label': `Characters per day by key: ${total} in ${days.length} days${keys.length ? ` from ${keys.length} keys` : ''}, most on one day ${total ? max : 0}`,
  });
  days.forEach((d, i) => {
    let y = hgt;
    keys.forEach((key, k) => {
      const v = perDay.get(d).get(key) ?? 0;
      if (!v) return;
      const barH = (v / max) * (hgt - 4);
      y -= barH;
      chart.append(
        svg(
          'rect',
          { x: i * bw + 1, y, width: Math.max(1, bw - 2), height: barH, fill: PALETTE[k % PALETTE.length] },
          svg('title', {}, `${d}, ${key}: ${v} characters`),
        ),
      );
    });
    if (i % 7 === 0) chart.append(svg('text', { x: i * bw, y: hgt + 13, class: 'tick' }, d.slice(5)));
  });
  const legend = document.createElement('ul');
  legend.className = 'legend';
  keys.forEach((key, k) => {
    const li = document.createElement('li');
    const dot = document.createElement('span');
    dot.className = 'dot';
    dot.style.setProperty('--dot', PALETTE[k % PALETTE.length]);
    li.append(dot, key);
    legend.append(li);
  });
  const figure = document.createElement('div');
  figure.append(chart, legend);
  return figure;
}
