// Backups: download a consistent archive of the data directory; restore one (the hub reloads its plugins).
export async function render(root, api) {
  const { h } = api;
  const file = h('input', { id: 'restore-file', type: 'file', accept: '.gz,application/gzip' });
  root.append(
    h('p', {}, h('a', { href: api.href('/backup'), download: '' }, 'Download a backup')),
    h('h3', {}, 'Restore'),
    h('p', {}, "Replaces every setting with the backup's. The console asks for the admin key afterwards."),
    h('label', { for: 'restore-file' }, 'Backup archive (.tar.gz)'),
    file,
    h(
      'p',
      {},
      h(
        'button',
        {
          type: 'button',
          onclick: async () => {
            const f = file.files?.[0];
            if (!f) return api.say('Choose a backup archive first.', true);
            try {
              const res = await api.upload('/restore', f, 'application/gzip');
              api.say(`Restored ${res.restored?.length ?? 0} files.`);
            } catch (err) {
              api.say(`Restore failed: ${err.message}`, true);
            }
          },
        },
        'Restore',
      ),
    ),
  );
}
