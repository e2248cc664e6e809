// The home view: favourites, then the rooms (the site's groups) each with its lights, the lights in no
// room, scenes, recent sensor events and connections. A light is shown once, in the first room that
// lists it, so each light has exactly one card on the page.
import { isFavourite } from './favourites.js';
import { t } from './i18n.js';
import { readingsLine, warningText } from './readings.js';
import {
  connectionItem,
  el,
  eventItem,
  orEmpty,
  syncKeyed,
  syncLightCards,
  syncSceneButtons,
} from './view.js';

const $ = (id) => document.getElementById(id);

/** Rooms in the site's order, each with the lights it shows; `null` id holds the lights in no room. */
export function roomsOf(state) {
  const placed = new Set();
  const rooms = state.groups.map((g) => {
    const lights = g.lights.filter((id) => state.lights.has(id) && !placed.has(id));
    for (const id of lights) placed.add(id);
    return { _id: g._id, name: g.name, group: g, lights };
  });
  const rest = [...state.lights.keys()].filter((id) => !placed.has(id));
  if (rest.length || !rooms.length)
    rooms.push({ _id: 'none', name: t('otherLights'), group: null, lights: rest });
  return rooms;
}

/** The room whose card a light sits in (its first group), or null. */
export function roomOfLight(state, lightId) {
  return state.groups.find((g) => g.lights.includes(lightId)) ?? null;
}

/** A room's toggle: its name, `aria-pressed` for its state; the visible "on"/"off" is not read twice. */
function roomToggle(group, act) {
  return el(
    'button',
    { type: 'button', 'data-group': group._id, class: 'room-toggle', onclick: () => act.group(group._id) },
    el('span'),
    el('small', { 'aria-hidden': 'true' }),
  );
}

function updateToggle(node, group, isOn) {
  const on = isOn(group);
  node.classList.toggle('lit', on);
  node.setAttribute('aria-pressed', String(on));
  node.firstChild.textContent = group.name;
  node.lastChild.textContent = on ? t('on') : t('off');
}

function roomSection(room, act) {
  const heading = el('h2', { id: `room-${room._id}` });
  const head = el('div', { class: 'room-head' }, heading);
  if (room.group) head.append(roomToggle(room.group, act));
  return el(
    'section',
    { class: 'room', 'data-room': room._id, 'aria-labelledby': `room-${room._id}` },
    head,
    el('ul', { class: 'cards' }),
  );
}

export function renderHome(app) {
  const { state, act } = app;
  const lightsOf = (ids) =>
    ids.map((id) => {
      const l = state.lights.get(id);
      return { ...l, pending: state.pending.get(id)?.level };
    });
  const isOn = (g) => g.lights.some((id) => state.lights.get(id)?.on);
  syncKeyed($('rooms'), roomsOf(state), {
    key: 'room',
    make: (room) => {
      const node = roomSection(room, act);
      fillRoom(node, room);
      return node;
    },
    fits: (node, room) => Boolean(node.querySelector('.room-toggle')) === Boolean(room.group),
    update: (node, room) => fillRoom(node, room),
    empty: '',
    emptyTag: 'p',
  });
  function fillRoom(node, room) {
    node.querySelector('h2').textContent = room.name;
    if (room.group) updateToggle(node.querySelector('.room-toggle'), room.group, isOn);
    syncLightCards(
      node.querySelector('ul'),
      lightsOf(room.lights),
      act,
      room.group ? t('roomEmpty') : t('noLights'),
    );
  }
  syncSceneButtons($('scenes'), state.scenes, act.scene);
  renderFavourites(app, isOn);
  $('events').replaceChildren(...orEmpty(state.events.slice(0, 10).map(eventItem), t('noEvents')));
  const measured = state.sensors.filter((s) => s.readings || s.warnings?.length);
  $('sensor-readings').replaceChildren(...orEmpty(measured.map(sensorItem), t('noSensorReadings')));
  const connections = [...state.connections.values()];
  $('connections').replaceChildren(
    ...orEmpty(
      connections.map((c) => connectionItem(c, connections)),
      t('noConnections'),
    ),
  );
}

/** A sensor's readings in one line, its warnings as badges, and when it was last heard from. */
function sensorItem(s) {
  const seen = s.readings?.lastSeen
    ? new Date(s.readings.lastSeen).toLocaleString(document.documentElement.lang, {
        weekday: 'short',
        hour: '2-digit',
        minute: '2-digit',
      })
    : '';
  return el(
    'li',
    { 'data-sensor': s._id },
    el('strong', {}, s.name),
    ` ${readingsLine(s.readings)}`,
    ...(s.warnings ?? []).map((w) => el('span', { class: 'badge off warning' }, warningText(w))),
    seen ? el('small', { class: 'muted' }, ` ${t('lastSeen', { time: seen })}`) : '',
  );
}

/** Favourite scenes, rooms and lights as big buttons at the top (chosen per device in Set up). */
function renderFavourites(app, isOn) {
  const { state, act } = app;
  const items = [
    ...state.scenes
      .filter((s) => isFavourite(state.siteid, 'scene', s._id))
      .map((s) => ({ kind: 'scene', item: s })),
    ...state.groups
      .filter((g) => isFavourite(state.siteid, 'group', g._id))
      .map((g) => ({ kind: 'group', item: g })),
    ...[...state.lights.values()]
      .filter((l) => isFavourite(state.siteid, 'light', l._id))
      .map((l) => ({ kind: 'light', item: l })),
  ].map((f) => ({ ...f, _id: `${f.kind}:${f.item._id}` }));
  syncKeyed($('favourites'), items, {
    key: 'fav',
    make: (f) => {
      const node = el(
        'button',
        {
          type: 'button',
          'data-fav': f._id,
          onclick: () => {
            if (f.kind === 'scene') act.scene(f.item._id);
            else if (f.kind === 'group') act.group(f.item._id);
            else act.toggle(f.item._id, !state.lights.get(f.item._id)?.on);
          },
        },
        el('span'),
        el('small', { 'aria-hidden': 'true' }),
      );
      updateFav(node, f);
      return node;
    },
    update: (node, f) => updateFav(node, f),
    empty: t('noFavourites'),
    emptyTag: 'p',
  });
  function updateFav(node, f) {
    node.firstChild.textContent = f.item.name;
    if (f.kind === 'scene') {
      node.lastChild.textContent = t('scene');
      return;
    }
    const on = f.kind === 'group' ? isOn(f.item) : Boolean(state.lights.get(f.item._id)?.on);
    node.classList.toggle('lit', on);
    node.setAttribute('aria-pressed', String(on));
    node.lastChild.textContent = on ? t('on') : t('off');
  }
}
