// The "Set up" view: everything a household sets up without a terminal — new devices (accept or dismiss),
// pairing with a countdown, lights (rename, move to a room, favourite), rooms, scenes (including "save
// what the lights show now") and binding a button by pressing it. Each part is redrawn only when the data
// it shows changed, and the focused field keeps its focus across a redraw.
import { isFavourite, setFavourite } from './favourites.js';
import { roomOfLight } from './home.js';
import { t } from './i18n.js';
import { el, orEmpty } from './view.js';
import { eventText, saveProblem, vendorName } from './words.js';

/** How long pairing stays open (the driver's `discover`), in seconds. */
export const PAIRING_SECONDS = 60;

/** Redraws `node` with `build()` when `signature` changed; the focused control (by `data-focus`) stays focused. */
function part(node, signature, build) {
  if (node.dataset.signature === signature) return;
  const hadFocus = node.contains(document.activeElement);
  const focused = hadFocus ? document.activeElement?.dataset?.focus : undefined;
  node.dataset.signature = signature;
  node.replaceChildren(...build());
  if (!hadFocus) return;
  // The same control again; when it is gone (an accepted device's row), the part's heading, so focus
  // never falls back to the top of the page.
  const again = focused && node.querySelector(`[data-focus="${CSS.escape(focused)}"]`);
  (again || node.querySelector('h2'))?.focus();
}

const heading = (id, key) => el('h2', { id, tabindex: -1 }, t(key));

export function setupView(app, root) {
  const { state, call, toast } = app;
  const save = (p, done) =>
    p.then(
      (r) => {
        if (done) toast(done);
        return r;
      },
      (err) => {
        toast(saveProblem(err));
        return null;
      },
    );

  const parts = {
    fresh: el('section', { 'aria-labelledby': 'h-new' }),
    pairing: el('section', { 'aria-labelledby': 'h-pairing' }),
    lights: el('section', { 'aria-labelledby': 'h-setup-lights' }),
    rooms: el('section', { 'aria-labelledby': 'h-rooms' }),
    scenes: el('section', { 'aria-labelledby': 'h-setup-scenes' }),
    buttons: el('section', { 'aria-labelledby': 'h-buttons' }),
  };
  root.append(...Object.values(parts));

  // ----- new devices -----
  function newDevices() {
    const fresh = [
      ...[...state.lights.values()].filter((l) => l.new).map((l) => ({ ...l, kind: 'light' })),
      ...state.sensors.filter((s) => s.new).map((s) => ({ ...s, kind: 'sensor' })),
    ];
    part(parts.fresh, JSON.stringify(fresh.map((d) => [d._id, d.name])), () => [
      heading('h-new', 'newDevices'),
      el(
        'ul',
        { class: 'rows', id: 'new-devices' },
        ...orEmpty(
          fresh.map((d) =>
            el(
              'li',
              { 'data-new': d._id },
              el(
                'span',
                { class: 'grow' },
                `${d.name} `,
                el('small', { class: 'muted' }, t(d.kind === 'light' ? 'aLightKind' : 'aSensorKind')),
              ),
              el(
                'button',
                {
                  type: 'button',
                  'data-focus': `accept-${d._id}`,
                  'aria-label': t('acceptNamed', { name: d.name }),
                  onclick: () =>
                    save(
                      call('PUT', d.kind === 'light' ? '/light' : '/sensor', { _id: d._id, new: false }),
                      t('accepted', { name: d.name }),
                    ),
                },
                t('accept'),
              ),
              el(
                'button',
                {
                  type: 'button',
                  'aria-label': t('dismissNamed', { name: d.name }),
                  onclick: () =>
                    save(
                      call('DELETE', `/${d.kind}/${encodeURIComponent(d._id)}`),
                      t('dismissed', { name: d.name }),
                    ),
                },
                t('dismiss'),
              ),
            ),
          ),
          t('noNewDevices'),
        ),
      ),
    ]);
  }

  // ----- pairing -----
  /** `{driver, until, timer, found}` while a driver's discovery is open; `found` after it closed. */
  let pairing = null;
  const known = (vendor, protocolid) =>
    [...state.lights.values(), ...state.sensors].some(
      (x) => x.vendor === vendor && (x.protocolid ?? x[`${vendor}id`]) === protocolid,
    );

  function startPairing(connection) {
    const until = Date.now() + PAIRING_SECONDS * 1000;
    pairing = { driver: connection._id, vendor: connection.vendor, until, found: null };
    pairing.timer = setInterval(tick, 1000);
    toast(t('pairingStarted', { what: vendorName(connection.vendor), seconds: PAIRING_SECONDS }));
    drawPairing(true);
    call('POST', '/connection/discover', { _id: connection._id, duration: PAIRING_SECONDS })
      .then((answer) => finishPairing(answer.devices ?? []))
      .catch((err) => {
        finishPairing([]);
        toast(err.offline ? t('hubUnreachable') : t('pairingFailed'));
      });
  }

  function finishPairing(devices) {
    if (!pairing) return;
    clearInterval(pairing.timer);
    pairing.until = 0;
    pairing.found = devices;
    toast(t('pairingDone', { count: devices.length }));
    drawPairing(true);
  }

  function tick() {
    const left = document.getElementById('pairing-left');
    if (left && pairing?.until)
      left.textContent = t('secondsLeft', {
        seconds: Math.max(0, Math.ceil((pairing.until - Date.now()) / 1000)),
      });
  }

  function drawPairing(force = false) {
    const connections = [...state.connections.values()];
    const found = (pairing?.found ?? []).filter((d) => !known(pairing.vendor, d.protocolid));
    const signature = JSON.stringify([
      connections.map((c) => [c._id, c.vendor]),
      pairing?.driver,
      pairing?.until,
      found,
    ]);
    if (force) parts.pairing.dataset.signature = '';
    part(parts.pairing, signature, () => [
      heading('h-pairing', 'addDevices'),
      el('p', { class: 'muted' }, t('pairingHelp')),
      el(
        'div',
        { class: 'buttons' },
        ...orEmpty(
          connections.map((c, i) =>
            el(
              'button',
              {
                type: 'button',
                'data-pair': c._id,
                'data-focus': `pair-${i}`,
                disabled: Boolean(pairing?.until),
                onclick: () => startPairing(c),
              },
              t('searchOn', { what: vendorName(c.vendor) }),
            ),
          ),
          t('noConnections'),
          'p',
        ),
      ),
      ...(pairing?.until
        ? [
            el(
              'p',
              { class: 'listening' },
              t('searching'),
              ' ',
              // A countdown read out every second would chatter: it is not a live region.
              el(
                'span',
                { id: 'pairing-left' },
                t('secondsLeft', { seconds: Math.ceil((pairing.until - Date.now()) / 1000) }),
              ),
            ),
          ]
        : []),
      ...(found.length
        ? [
            el('h3', {}, t('foundDevices')),
            el(
              'ul',
              { class: 'rows' },
              ...found.map((d) =>
                el(
                  'li',
                  { 'data-found': d.protocolid },
                  el('span', { class: 'grow' }, d.name ?? d.protocolid),
                  el(
                    'button',
                    {
                      type: 'button',
                      onclick: () => addFound(d),
                      'aria-label': t('addNamed', { name: d.name ?? d.protocolid }),
                    },
                    t('add'),
                  ),
                ),
              ),
            ),
          ]
        : []),
    ]);
  }

  function addFound(d) {
    const vendor = pairing.vendor;
    const name = d.name ?? d.protocolid;
    const body =
      d.kind === 'sensor'
        ? {
            name,
            vendor,
            protocolid: d.protocolid,
            type: 'button',
            ...(d.events ? { events: d.events } : {}),
          }
        : { name, vendor, protocolid: d.protocolid, type: d.kind === 'binary' ? 'binary' : 'dimmable' };
    save(call('POST', d.kind === 'sensor' ? '/sensor' : '/light', body), t('added', { name })).then(() =>
      drawPairing(true),
    );
  }

  // ----- lights -----
  function lights() {
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
    part(parts.lights, signature, () => [
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
              el(
                'label',
                { class: 'field grow' },
                t('name'),
                el('input', {
                  type: 'text',
                  value: l.name,
                  'data-focus': `name-${l._id}`,
                  maxlength: 64,
                  onchange: (e) => save(call('PUT', '/light', { _id: l._id, name: e.target.value.trim() })),
                }),
              ),
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
  }

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

  function favouriteBox(kind, item) {
    return el(
      'label',
      { class: 'check' },
      el('input', {
        type: 'checkbox',
        'data-focus': `fav-${kind}-${item._id}`,
        checked: isFavourite(state.siteid, kind, item._id),
        onchange: (e) => {
          setFavourite(state.siteid, kind, item._id, e.target.checked);
          app.render();
        },
      }),
      ` ${t('favourite')}`,
    );
  }

  // ----- rooms -----
  function rooms() {
    const signature = JSON.stringify(
      state.groups.map((g) => [g._id, g.name, g.lights.length, isFavourite(state.siteid, 'group', g._id)]),
    );
    part(parts.rooms, signature, () => [
      heading('h-rooms', 'rooms'),
      el(
        'ul',
        { class: 'rows' },
        ...orEmpty(
          state.groups.map((g) =>
            el(
              'li',
              { 'data-setup-room': g._id },
              el(
                'label',
                { class: 'field grow' },
                t('name'),
                el('input', {
                  type: 'text',
                  value: g.name,
                  maxlength: 64,
                  'data-focus': `room-name-${g._id}`,
                  onchange: (e) =>
                    save(call('PUT', '/light/group', { _id: g._id, name: e.target.value.trim() })),
                }),
              ),
              el('span', { class: 'muted' }, t('lightCount', { count: g.lights.length })),
              favouriteBox('group', g),
              el(
                'button',
                {
                  type: 'button',
                  'aria-label': t('deleteNamed', { name: g.name }),
                  onclick: () =>
                    save(
                      call('DELETE', `/light/group/${encodeURIComponent(g._id)}`),
                      t('deleted', { name: g.name }),
                    ),
                },
                t('delete'),
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
  }

  /** A one-field form ("name" + button); `submit(name)` returns a promise; the field empties on success. */
  function nameForm(id, labelKey, buttonKey, submit) {
    const input = el('input', { type: 'text', id, required: true, maxlength: 64, 'data-focus': id });
    return el(
      'form',
      {
        class: 'form',
        onsubmit: async (e) => {
          e.preventDefault();
          const name = input.value.trim();
          if (!name) return;
          if (await submit(name)) input.value = '';
        },
      },
      el('label', { for: id }, t(labelKey)),
      input,
      el('button', { type: 'submit' }, t(buttonKey)),
    );
  }

  // ----- scenes -----
  /** The light levels shown now, as a scene's state. */
  const levelsNow = () => [...state.lights.values()].map((l) => ({ _id: l._id, on: l.on, bri: l.bri }));
  let editing = null; // scene id whose editor is open

  function scenes() {
    const signature = JSON.stringify([
      state.scenes.map((s) => [s._id, s.name, isFavourite(state.siteid, 'scene', s._id)]),
      editing,
    ]);
    part(parts.scenes, signature, () => [
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
              el(
                'button',
                {
                  type: 'button',
                  'aria-label': t('deleteNamed', { name: s.name }),
                  onclick: () =>
                    save(
                      call('DELETE', `/scene/${encodeURIComponent(s._id)}`),
                      t('deleted', { name: s.name }),
                    ),
                },
                t('delete'),
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

  // ----- buttons and sensors -----
  /** `null`, `{listening:true}` while waiting for a press, or `{sensor, event}` once one came. */
  let binding = null;
  app.events.addEventListener('eventSourceKey', (e) => {
    if (!binding?.listening) return;
    binding = { sensor: e.detail._id, name: e.detail.name, event: e.detail.event };
    toast(t('heard', { what: `${e.detail.name}: ${eventText(e.detail.event)}` }));
    buttons();
  });

  /** Every action a button can run, as select options: value = JSON of the action. */
  function actionOptions() {
    return [
      ...state.scenes.map((s) => [{ type: 'scene', _id: s._id }, t('actScene', { name: s.name })]),
      ...state.groups.map((g) => [{ type: 'group/toggle', _id: g._id }, t('actRoom', { name: g.name })]),
      ...[...state.lights.values()].flatMap((l) => [
        [{ type: 'light', _id: l._id, on: true, bri: 255 }, t('actLightOn', { name: l.name })],
        [{ type: 'light', _id: l._id, on: false, bri: 0 }, t('actLightOff', { name: l.name })],
      ]),
    ];
  }

  function describeAction(a) {
    const name = (list, id) => list.find((x) => x._id === id)?.name ?? '?';
    if (a.type === 'scene') return t('actScene', { name: name(state.scenes, a._id) });
    if (a.type === 'group/toggle') return t('actRoom', { name: name(state.groups, a._id) });
    const light = state.lights.get(a._id)?.name ?? '?';
    return t(a.on ? 'actLightOn' : 'actLightOff', { name: light });
  }

  function buttons() {
    const signature = JSON.stringify([
      state.sensors.map((s) => [s._id, s.name, s.actions]),
      binding,
      state.scenes.length,
      state.groups.length,
      state.lights.size,
    ]);
    part(parts.buttons, signature, () => {
      const bound = state.sensors.flatMap((s) =>
        Object.entries(s.actions ?? {}).flatMap(([event, list]) =>
          list.map((a) => ({ sensor: s, event, a })),
        ),
      );
      return [
        heading('h-buttons', 'buttons'),
        el(
          'ul',
          { class: 'rows', id: 'sensors' },
          ...state.sensors.map((sensor) =>
            el(
              'li',
              { 'data-setup-sensor': sensor._id },
              el(
                'label',
                { class: 'field grow' },
                t('name'),
                el('input', {
                  type: 'text',
                  value: sensor.name,
                  maxlength: 64,
                  'data-focus': `sensor-name-${sensor._id}`,
                  onchange: (e) =>
                    save(call('PUT', '/sensor', { _id: sensor._id, name: e.target.value.trim() })),
                }),
              ),
            ),
          ),
        ),
        el(
          'ul',
          { class: 'rows', id: 'bindings' },
          ...orEmpty(
            bound.map(({ sensor, event, a }) =>
              el(
                'li',
                { 'data-binding': a.actionid },
                el('span', { class: 'grow' }, `${sensor.name}: ${eventText(event)} → ${describeAction(a)}`),
                el(
                  'button',
                  {
                    type: 'button',
                    'aria-label': t('unbindNamed', { what: `${sensor.name}: ${eventText(event)}` }),
                    onclick: () =>
                      save(
                        call(
                          'DELETE',
                          `/sensor/${encodeURIComponent(sensor._id)}/action/${encodeURIComponent(a.actionid)}`,
                        ),
                        t('unbound'),
                      ),
                  },
                  t('remove'),
                ),
              ),
            ),
            t('noBindings'),
          ),
        ),
        ...bindControls(),
      ];
    });
  }

  function bindControls() {
    if (!binding)
      return [
        el(
          'button',
          {
            type: 'button',
            id: 'bind',
            'data-focus': 'bind',
            onclick: () => {
              binding = { listening: true };
              toast(t('pressNow'));
              buttons();
            },
          },
          t('bindButton'),
        ),
      ];
    const cancel = el(
      'button',
      {
        type: 'button',
        onclick: () => {
          binding = null;
          buttons();
        },
      },
      t('cancel'),
    );
    if (binding.listening)
      return [
        el('p', { class: 'listening', id: 'listening' }, t('pressNow')),
        el('div', { class: 'buttons' }, cancel),
      ];
    const options = actionOptions();
    const select = el(
      'select',
      { id: 'bind-action', 'data-focus': 'bind-action' },
      ...options.map(([, text], i) => el('option', { value: i }, text)),
    );
    return [
      el('p', { class: 'listening' }, t('heard', { what: `${binding.name}: ${eventText(binding.event)}` })),
      el(
        'form',
        {
          class: 'form',
          onsubmit: async (e) => {
            e.preventDefault();
            const chosen = options[Number(select.value)];
            if (!chosen) return;
            if (
              await save(
                call('POST', '/sensor/action', {
                  _id: binding.sensor,
                  event: binding.event,
                  action: chosen[0],
                }),
                t('bound'),
              )
            ) {
              binding = null;
              buttons();
            }
          },
        },
        el('label', { for: 'bind-action' }, t('whatShouldHappen')),
        select,
        el('div', { class: 'buttons' }, el('button', { type: 'submit' }, t('saveBinding')), cancel),
      ),
    ];
  }

  return {
    render() {
      newDevices();
      drawPairing();
      lights();
      rooms();
      scenes();
      buttons();
    },
  };
}
