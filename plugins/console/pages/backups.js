// Backups: download a consistent archive of the data directory; restore one (the hub reloads its plugins,
// which ends every console session: the page says so and the shell asks for the admin key again).
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
            if (
              !confirm(`Replace every setting with the backup ${f.name}? Changes since it was made are lost.`)
            )
              return;
            let res;
            try {
              res = await api.upload('/restore', f, 'application/gzip');
            } catch (err) {
              return api.say(`Restore failed: ${err.message}`, true);
            }
            api.say(`Restored ${res.restored?.length ?? 0} files. Sign in again with the admin key.`);
            // The restore ended this session: the next call answers 401 and the shell shows the sign-in.
            await api.get('/hub').catch(() => {});
          },
        },
        'Restore',
      ),
    ),
  );
}
