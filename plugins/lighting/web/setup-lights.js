// Set up, "Lights": rename a light, move it to a room (a light lives in one room) and mark it a favourite.
import { isFavourite } from './favourites.js';
import { nameField } from './forms.js';
import { roomOfLight } from './home.js';
import { t } from './i18n.js';
import { heading, part } from './setup-part.js';
import { el, orEmpty } from './view.js';

/** Builds the section into `node`; answers its draw function. */
export function lightsSection({ state, call, save, favouriteBox }, node) {
  /** A light lives in one room: moving takes it out of the room it was shown in and into the new one. */
  async function moveLight(light, from, toId) {
    if (from)
      await save(
        call('PUT', '/light/group', { _id: from._id, lights: from.lights.filter((id) => id !== light._id) }),
      );
    const to = state.groups.find((g) => g._id === toId);
    if (to)
      await save(
        call('PUT', '/light/group', { _id: to._id, lights: [...to.lights, light._id] }),
        t('moved', { name: light.name, room: to.name }),
      );
  }

  return function lights() {
    const list = [...state.lights.values()];
    const rooms = state.groups;
    const signature = JSON.stringify([
      list.map((l) => [
        l._id,
        l.name,
        roomOfLight(state, l._id)?._id,
        isFavourite(state.siteid, 'light', l._id),
      ]),
      rooms.map((g) => [g._id, g.name]),
    ]);
    part(node, signature, () => [
      heading('h-setup-lights', 'lights'),
      el(
        'ul',
        { class: 'rows' },
        ...orEmpty(
          list.map((l) => {
            const room = roomOfLight(state, l._id);
            return el(
              'li',
              { 'data-setup-light': l._id },
              nameField(l.name, `name-${l._id}`, (name) => save(call('PUT', '/light', { _id: l._id, name }))),
              el(
                'label',
                { class: 'field' },
                t('room'),
                el(
                  'select',
                  { 'data-focus': `room-${l._id}`, onchange: (e) => moveLight(l, room, e.target.value) },
                  el('option', { value: '' }, t('noRoom')),
                  ...rooms.map((g) => el('option', { value: g._id, selected: g._id === room?._id }, g.name)),
                ),
              ),
              favouriteBox('light', l),
            );
          }),
          t('noLights'),
        ),
      ),
    ]);
  };
}
