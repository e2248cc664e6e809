// Console page of the lighting plugin: sites (list, create, rename in place, rotate the key, delete) and a
// QR code of a site's link, shown only right after the key was made (the hub keeps only its hash).
export async function render(root, api) {
  const { h } = api;
  const table = h('tbody');
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

  /** Turns a site's name cell into a form; the API's answer (or its error) decides what happens next. */
  function rename(cell, s) {
    const input = h('input', {
      value: s.name,
      required: true,
      maxlength: 100,
      'aria-label': `New name of ${s.name}`,
    });
    cell.replaceChildren(
      h(
        'form',
        {
          class: 'inline',
          onsubmit: async (e) => {
            e.preventDefault();
            try {
              const site = await api.send('PATCH', `/sites/${s.siteid}`, { name: input.value });
              api.say(`Renamed ${s.name} to ${site.name}.`);
              await load();
            } catch (err) {
              api.say(err.message, true);
              input.focus();
            }
          },
        },
        input,
        h('button', { type: 'submit', 'aria-label': `Save the name of ${s.name}` }, 'Save'),
        h(
          'button',
          {
            type: 'button',
            'aria-label': `Keep the name ${s.name}`,
            onclick: () => {
              cell.replaceChildren(s.name);
              api.say(`${s.name} unchanged.`);
            },
          },
          'Cancel',
        ),
      ),
    );
    input.focus();
    input.select();
  }

  async function load() {
    const sites = await api.get('/sites');
    table.replaceChildren(
      ...sites.map((s) =>
        h(
          'tr',
          { 'data-site': s.siteid },
          h('td', { class: 'site-name' }, s.name),
          h('td', {}, `${s.lights} lights, ${s.scenes} scenes, ${s.groups} groups, ${s.sensors} sensors`),
          h(
            'td',
            {},
            h(
              'button',
              {
                type: 'button',
                'aria-label': `Rename ${s.name}`,
                onclick: (e) => rename(e.target.closest('tr').querySelector('.site-name'), s),
              },
              'Rename',
            ),
            ' ',
            h(
              'button',
              {
                type: 'button',
                'aria-label': `Rotate the key of ${s.name}`,
                onclick: async () => {
                  if (!confirm(`Rotate the key of ${s.name}? Every phone needs the new link.`)) return;
                  try {
                    const site = await api.send('POST', `/sites/${s.siteid}/rotate-key`);
                    await showLink({ ...s, ...site }, 'New key');
                  } catch (err) {
                    api.say(err.message, true);
                  }
                },
              },
              'Rotate key',
            ),
            ' ',
            h(
              'button',
              {
                type: 'button',
                'aria-label': `Delete ${s.name}`,
                onclick: async () => {
                  if (!confirm(`Delete ${s.name} and all its lights, scenes and schedules?`)) return;
                  try {
                    await api.send('DELETE', `/sites/${s.siteid}`);
                    api.say(`Deleted ${s.name}.`);
                  } catch (err) {
                    api.say(err.message, true);
                  }
                  await load();
                },
              },
              'Delete',
            ),
          ),
        ),
      ),
    );
  }

  const name = h('input', { id: 'new-site', name: 'name', required: true, maxlength: 100 });
  root.append(
    h(
      'table',
      {},
      h('caption', {}, 'Sites'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Name'),
          h('th', { scope: 'col' }, 'Contents'),
          h('th', { scope: 'col' }, 'Actions'),
        ),
      ),
      table,
    ),
    h(
      'form',
      {
        onsubmit: async (e) => {
          e.preventDefault();
          try {
            const site = await api.send('POST', '/sites', { name: name.value });
            name.value = '';
            await load();
            await showLink(site, 'Created');
          } catch (err) {
            api.say(err.message, true);
          }
        },
      },
      h('h3', {}, 'New site'),
      h('label', { for: 'new-site' }, 'Name'),
      name,
      ' ',
      h('button', { type: 'submit' }, 'Create'),
    ),
    shown,
  );
  await load();
}
