// Console page of the lighting plugin: sites (list, create, rename in place, rotate the key, delete) and a
// QR code of a site's link, shown only right after the key was made (the hub keeps only its hash).
export async function render(root, api) {
  const { h, run, button, table } = api;
  const rows = h('tbody');
  const shown = h('div', { id: 'site-link' });

  async function showLink(site, what) {
    const img = h('img', {
      class: 'qr',
      src: await api.qr(site.url),
      alt: `QR code of the link to site ${site.name}`,
    });
    shown.replaceChildren(
      h('h3', {}, `${what}: ${site.name}`),
      h('p', {}, "Open this link on the household's phones, or scan the code. It is shown only now."),
      h('p', { class: 'secret' }, h('a', { href: site.url }, site.url)),
      img,
    );
    api.say(`${what}: ${site.name}. Its link is shown below.`);
  }

  async function load() {
    const sites = await api.get('/sites');
    rows.replaceChildren(
      ...sites.map((s) =>
        h(
          'tr',
          { 'data-site': s.siteid },
          h('td', { class: 'site-name' }, s.name),
          h('td', {}, `${s.lights} lights, ${s.scenes} scenes, ${s.groups} groups, ${s.sensors} sensors`),
          h(
            'td',
            {},
            button('Rename', `Rename ${s.name}`, (e) =>
              api.rename(e.target.closest('tr').querySelector('.site-name'), s.name, {
                attrs: { required: true, maxlength: 100 },
                save: async (value) => {
                  const site = await api.send('PATCH', `/sites/${s.siteid}`, { name: value });
                  return `Renamed ${s.name} to ${site.name}.`;
                },
                reload: load,
              }),
            ),
            ' ',
            button('Rotate key', `Rotate the key of ${s.name}`, async () => {
              if (!confirm(`Rotate the key of ${s.name}? Every phone needs the new link.`)) return;
              const site = await api.send('POST', `/sites/${s.siteid}/rotate-key`);
              await showLink({ ...s, ...site }, 'New key');
            }),
            ' ',
            button('Delete', `Delete ${s.name}`, async () => {
              if (!confirm(`Delete ${s.name} and all its lights, scenes and schedules?`)) return;
              try {
                await api.send('DELETE', `/sites/${s.siteid}`);
                api.say(`Deleted ${s.name}.`);
              } finally {
                // Gone already (deleted elsewhere) or not: the list shows what the hub has now.
                await load();
              }
            }),
          ),
        ),
      ),
    );
  }

  const name = h('input', { id: 'new-site', name: 'name', required: true, maxlength: 100 });
  root.append(
    table('Sites', ['Name', 'Contents', 'Actions'], rows),
    h(
      'form',
      {
        onsubmit: run('New site', async () => {
          const site = await api.send('POST', '/sites', { name: name.value });
          name.value = '';
          await load();
          await showLink(site, 'Created');
        }),
      },
      h('h3', {}, 'New site'),
      api.label('new-site', 'Name'),
      name,
      ' ',
      h('button', { type: 'submit' }, 'Create'),
    ),
    shown,
  );
  await load();
}
