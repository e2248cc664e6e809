// Set up, "Scenes": a new scene from what the lights show now; each scene can be edited (name and each
// light's level, or "use what the lights show now"), deleted and marked a favourite.
import { isFavourite } from './favourites.js';
import { deleteButton, nameForm } from './forms.js';
import { t } from './i18n.js';
import { heading, part } from './setup-part.js';
import { el, orEmpty } from './view.js';

/** Builds the section into `node`; answers its draw function. */
export function scenesSection({ state, call, save, favouriteBox }, node) {
  /** The light levels shown now, as a scene's state. */
  const levelsNow = () => [...state.lights.values()].map((l) => ({ _id: l._id, on: l.on, bri: l.bri }));
  let editing = null; // scene id whose editor is open

  function scenes() {
    const signature = JSON.stringify([
      state.scenes.map((s) => [s._id, s.name, isFavourite(state.siteid, 'scene', s._id)]),
      editing,
    ]);
    part(node, signature, () => [
      heading('h-setup-scenes', 'scenes'),
      el(
        'ul',
        { class: 'rows' },
        ...orEmpty(
          state.scenes.map((s) =>
            el(
              'li',
              { 'data-setup-scene': s._id },
              el('span', { class: 'grow' }, s.name),
              favouriteBox('scene', s),
              el(
                'button',
                {
                  type: 'button',
                  'aria-expanded': String(editing === s._id),
                  'aria-label': t('editNamed', { name: s.name }),
                  'data-focus': `edit-${s._id}`,
                  onclick: () => {
                    editing = editing === s._id ? null : s._id;
                    scenes();
                  },
                },
                t('edit'),
              ),
              deleteButton(s.name, () =>
                save(call('DELETE', `/scene/${encodeURIComponent(s._id)}`), t('deleted', { name: s.name })),
              ),
              ...(editing === s._id ? [sceneEditor(s)] : []),
            ),
          ),
          t('noScenes'),
        ),
      ),
      nameForm('new-scene', 'newScene', 'saveNow', (name) =>
        save(call('POST', '/scene', { name, state: levelsNow() }), t('sceneSaved', { name })),
      ),
    ]);
  }

  /** Name and each light's level in the scene; "use what the lights show now" fills in the current levels. */
  function sceneEditor(scene) {
    const rows = [...state.lights.values()].map((l) => {
      const entry = scene.state.find((e) => e._id === l._id);
      const include = el('input', {
        type: 'checkbox',
        checked: Boolean(entry),
        'aria-label': t('inScene', { name: l.name }),
      });
      const level = el('input', {
        type: 'range',
        min: 0,
        max: 255,
        value: entry ? entry.bri : 255,
        'aria-label': t('levelInScene', { name: l.name }),
      });
      return { light: l, include, level, node: el('li', {}, include, ` ${l.name} `, level) };
    });
    const name = el('input', {
      type: 'text',
      value: scene.name,
      maxlength: 64,
      id: `scene-name-${scene._id}`,
    });
    return el(
      'form',
      {
        class: 'form grow',
        'data-scene-editor': scene._id,
        onsubmit: async (e) => {
          e.preventDefault();
          const levels = rows
            .filter((r) => r.include.checked)
            .map((r) => ({ _id: r.light._id, on: Number(r.level.value) > 0, bri: Number(r.level.value) }));
          if (
            await save(
              call('PUT', '/scene', { _id: scene._id, name: name.value.trim(), state: levels }),
              t('sceneSaved', { name: name.value.trim() }),
            )
          ) {
            editing = null;
            scenes();
          }
        },
      },
      el('label', { for: `scene-name-${scene._id}` }, t('name')),
      name,
      el('ul', { class: 'rows' }, ...rows.map((r) => r.node)),
      el(
        'div',
        { class: 'buttons' },
        el(
          'button',
          {
            type: 'button',
            onclick: () => {
              for (const r of rows) {
                r.include.checked = true;
                r.level.value = String(r.light.on ? r.light.bri : 0);
              }
            },
          },
          t('useNow'),
        ),
        el('button', { type: 'submit' }, t('saveScene')),
      ),
    );
  }

  return scenes;
}
