// Set up, "Rooms" (the site's groups): make, rename, delete and mark a favourite.
import { isFavourite } from './favourites.js';
import { deleteButton, nameField, nameForm } from './forms.js';
import { t } from './i18n.js';
import { heading, part } from './setup-part.js';
import { el, orEmpty } from './view.js';

/** Builds the section into `node`; answers its draw function. */
export function roomsSection({ state, call, save, favouriteBox }, node) {
  return function rooms() {
    const signature = JSON.stringify(
      state.groups.map((g) => [g._id, g.name, g.lights.length, isFavourite(state.siteid, 'group', g._id)]),
    );
    part(node, signature, () => [
      heading('h-rooms', 'rooms'),
      el(
        'ul',
        { class: 'rows' },
        ...orEmpty(
          state.groups.map((g) =>
            el(
              'li',
              { 'data-setup-room': g._id },
              nameField(g.name, `room-name-${g._id}`, (name) =>
                save(call('PUT', '/light/group', { _id: g._id, name })),
              ),
              el('span', { class: 'muted' }, t('lightCount', { count: g.lights.length })),
              favouriteBox('group', g),
              deleteButton(g.name, () =>
                save(
                  call('DELETE', `/light/group/${encodeURIComponent(g._id)}`),
                  t('deleted', { name: g.name }),
                ),
              ),
            ),
          ),
          t('noRooms'),
        ),
      ),
      nameForm('new-room', 'newRoom', 'makeRoom', (name) =>
        save(call('POST', '/light/group', { name, lights: [] }), t('made', { name })),
      ),
    ]);
  };
}
