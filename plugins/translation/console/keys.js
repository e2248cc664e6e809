// Console page of the translation plugin: developer keys (create, label, deactivate) and usage by key and day.
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
          ...['Label', 'Created', 'State', 'Character limit', 'Actions'].map((t) =>
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
    h(
      'table',
      {},
      h('caption', {}, 'Characters translated in the last 30 days, by key and day'),
      h('thead', {}, h('tr', {}, ...['Day', 'Key', 'Characters'].map((t) => h('th', { scope: 'col' }, t)))),
      usage,
    ),
  );
  await load();
}
