// Hearth lighting web UI: plain DOM, no build step, no third-party code. The site key is the last path
// segment of /site/<key>; commands go to the REST API, changes arrive over the site WebSocket.
import {
  connectionItem,
  eventItem,
  orEmpty,
  syncGroupButtons,
  syncLightCards,
  syncSceneButtons,
} from './view.js';
import { actionProblem, lightProblem } from './words.js';

const key = decodeURIComponent(location.pathname.split('/').filter(Boolean).pop() ?? '');
const api = `/api/site/${encodeURIComponent(key)}`;
const state = {
  name: '',
  lights: new Map(),
  scenes: [],
  groups: [],
  events: [],
  connections: new Map(),
  /** Light id → `{level, seq}`: a command sent and not confirmed yet. */
  pending: new Map(),
};
const $ = (id) => document.getElementById(id);
// How long a light may stay "switching…" without a report from the hub: longer than the hub's own wait
// for a silent device (3 s by default, then a read-back), after which the hub has told all it knows.
const PENDING_MS = 8000;

/** Shows a message at the bottom; it goes away after 4 s unless it is `sticky`, or when tapped. */
function toast(text, sticky = false) {
  $('toast').textContent = text;
  if (text && !sticky) setTimeout(() => $('toast').textContent === text && toast(''), 4000);
}
$('toast').addEventListener('click', () => toast(''));

/** A refused call: `status` for the hub's answers, `offline` when the hub could not be reached at all. */
class CallError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
    this.offline = status === 0;
  }
}

async function call(method, path, body) {
  let res;
  try {
    res = await fetch(api + path, {
      method,
      headers: body ? { 'Content-Type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch {
    throw new CallError(0, 'hub not reachable');
  }
  const data = res.status === 204 ? null : await res.json().catch(() => null);
  if (!res.ok) throw new CallError(res.status, data?.message ?? `HTTP ${res.status}`);
  return data;
}

/** Scene apply and group toggle answer 200 with the lights that failed; say which ones. */
function reportFailed(result) {
  const names = (result?.failed ?? []).map((f) => state.lights.get(f._id)?.name ?? 'a light');
  if (names.length) toast(`Could not switch ${names.join(', ')}`);
}

let seq = 0;
/**
 * Sends a level and shows the light as pending until the hub confirms it: in the answer (`confirmed`), by a
 * `setLightState` push, or not at all — then, after PENDING_MS, the card shows what the hub last confirmed.
 */
function command(id, level) {
  const name = state.lights.get(id)?.name ?? 'The light';
  const mine = ++seq;
  clearTimeout(state.pending.get(id)?.timer);
  const timer = setTimeout(() => {
    if (state.pending.get(id)?.seq !== mine) return;
    state.pending.delete(id);
    toast(`“${name}” did not confirm the change; it is shown as it last reported.`);
    render();
  }, PENDING_MS);
  state.pending.set(id, { level, seq: mine, timer });
  render();
  call('PUT', '/light/state', { _id: id, ...level })
    .then((answer) => {
      if (!answer?.confirmed || state.pending.get(id)?.seq !== mine) return;
      settle(id);
      const light = state.lights.get(id);
      // the answer carries the level and, for a light with colour, the colour it ended up in
      const { _id, confirmed, ...shown } = answer;
      if (light) keepLight({ ...light, ...shown });
      render();
    })
    .catch((err) => {
      if (state.pending.get(id)?.seq === mine) settle(id);
      toast(lightProblem(err, name));
      render();
    });
}

function settle(id) {
  clearTimeout(state.pending.get(id)?.timer);
  state.pending.delete(id);
}

const act = {
  toggle(id, on) {
    const light = state.lights.get(id);
    command(id, { on, bri: on ? light?.lastBri || 255 : 0 });
  },
  dim: (id, bri) => command(id, { on: bri > 0, bri }),
  /** A colour (`{kelvin}` or `{hex}`) switches the light on at its level. */
  colour(id, fields) {
    const light = state.lights.get(id);
    command(id, { on: true, bri: light?.on ? light.bri : light?.lastBri || 255, ...fields });
  },
};

const onAction = (what) => (p) =>
  p.then(reportFailed).catch((err) => {
    toast(actionProblem(err, what));
    render();
  });

function render() {
  $('site-name').textContent = state.name || 'Lights';
  document.title = `${state.name} · Hearth`;
  const lights = [...state.lights.values()].map((l) => ({ ...l, pending: state.pending.get(l._id)?.level }));
  syncLightCards($('lights'), lights, act);
  syncSceneButtons($('scenes'), state.scenes, (id) =>
    onAction('scene')(call('PUT', '/scene/apply', { _id: id })),
  );
  syncGroupButtons(
    $('groups'),
    state.groups,
    (g) => g.lights.some((id) => state.lights.get(id)?.on),
    (id) => onAction('group')(call('PUT', '/light/group/toggle', { _id: id })),
  );
  $('events').replaceChildren(...orEmpty(state.events.slice(0, 10).map(eventItem), 'No sensor events yet'));
  const connections = [...state.connections.values()];
  $('connections').replaceChildren(
    ...orEmpty(
      connections.map((c) => connectionItem(c, connections)),
      'Nothing is connected to this home yet',
    ),
  );
}

/** Remembers each light's last non-zero level, so switching it on brings it back where it was. */
function keepLight(light) {
  const prev = state.lights.get(light._id);
  light.lastBri = light.on ? light.bri : prev?.lastBri;
  state.lights.set(light._id, light);
}

const handlers = {
  hello(d) {
    state.name = d.name;
    const before = state.lights;
    state.lights = new Map();
    for (const l of d.lights) {
      l.lastBri = l.on ? l.bri : before.get(l._id)?.lastBri;
      state.lights.set(l._id, l);
    }
    for (const id of state.pending.keys()) if (!state.lights.has(id)) settle(id);
    state.scenes = d.scenes;
    state.groups = d.groups;
    state.connections = new Map(d.connections.map((c) => [c._id, c]));
  },
  siteChanged(d) {
    handlers.hello({ ...d, connections: [...state.connections.values()] });
  },
  // The hub confirmed a level: that is what the light shows, pending or not.
  setLightState(light) {
    settle(light._id);
    keepLight(light);
  },
  connection: (c) => state.connections.set(c._id, c),
  eventSourceKey: (e) => state.events.unshift(e),
  sceneApplied: () => {},
};

function setLive(live) {
  $('live').textContent = live ? 'live' : 'offline, reconnecting…';
  $('live').className = `badge ${live ? 'on' : 'off'}`;
  document.body.classList.toggle('offline', !live);
}

let retry = 500;
function connect() {
  const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${api}/ws`);
  ws.onopen = () => {
    retry = 500;
    setLive(true);
    call('GET', '/sensor/event')
      .then((list) => {
        state.events = list;
        render();
      })
      .catch(() => {});
  };
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (Object.hasOwn(handlers, msg.command)) handlers[msg.command](msg.data);
    render();
  };
  ws.onclose = (ev) => {
    // 4001: the site key was changed or the site deleted. This link is dead; retrying would only 404.
    if (ev.code === 4001) {
      $('live').textContent = 'link expired';
      $('live').className = 'badge off';
      document.body.classList.add('offline');
      toast('This page’s link no longer works. Ask for the new link to this home.', true);
      return;
    }
    setLive(false);
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 10000);
  };
}

connect();
