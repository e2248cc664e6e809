// The hub's status: version, plugins and their health, storage, and the notices plugins raised.
export async function render(root, api) {
  const { h } = api;
  const s = await api.get('/hub');
  const notices = s.notices ?? [];
  root.append(
    h('p', {}, `Hearth ${s.version ?? ''} · ${s.state ?? ''} · up ${s.uptime_s ?? 0} s`),
    h('h3', {}, 'Notices'),
    notices.length
      ? h(
          'ul',
          {},
          notices.map((n) => h('li', {}, `${n.source}: ${n.text}`)),
        )
      : h('p', {}, 'No notices.'),
    h('h3', {}, 'Plugins'),
    h(
      'table',
      {},
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Plugin'),
          h('th', { scope: 'col' }, 'State'),
          h('th', { scope: 'col' }, 'Detail'),
        ),
      ),
      h(
        'tbody',
        {},
        (s.plugins ?? []).map((p) =>
          h(
            'tr',
            {},
            h('td', {}, p.name),
            h('td', {}, p.health?.status ?? p.status),
            h('td', {}, p.health?.detail ?? p.error ?? ''),
          ),
        ),
      ),
    ),
  );
}
