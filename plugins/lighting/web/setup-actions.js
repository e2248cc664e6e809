// What a bound button can do, in words: the choices offered when binding one and the text of a saved
// binding's action. Both read the site's state as it is now.
import { t } from './i18n.js';

/** Every action a button can run, as `[action, text]` pairs (the binding form's options). */
export function actionOptions(state) {
  return [
    ...state.scenes.map((s) => [{ type: 'scene', _id: s._id }, t('actScene', { name: s.name })]),
    ...state.groups.map((g) => [{ type: 'group/toggle', _id: g._id }, t('actRoom', { name: g.name })]),
    ...[...state.lights.values()].flatMap((l) => [
      [{ type: 'light', _id: l._id, on: true, bri: 255 }, t('actLightOn', { name: l.name })],
      [{ type: 'light', _id: l._id, on: false, bri: 0 }, t('actLightOff', { name: l.name })],
    ]),
  ];
}

/** A saved action as text; a scene, room or light deleted since is named "?". */
export function describeAction(state, a) {
  const name = (list, id) => list.find((x) => x._id === id)?.name ?? '?';
  if (a.type === 'scene') return t('actScene', { name: name(state.scenes, a._id) });
  if (a.type === 'group/toggle') return t('actRoom', { name: name(state.groups, a._id) });
  const light = state.lights.get(a._id)?.name ?? '?';
  return t(a.on ? 'actLightOn' : 'actLightOff', { name: light });
}
