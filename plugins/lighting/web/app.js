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

const key = decodeURIComponent(location.pathname.split('/').filter(Boolean).pop() ?? '');
const api = `/api/site/${encodeURIComponent(key)}`;
const state = { name: '', lights: new Map(), scenes: [], groups: [], events: [], connections: new Map() };
const $ = (id) => document.getElementById(id);

/** Shows a message at the bottom; it goes away after 4 s unless it is `sticky`, or when tapped. */
function toast(text, sticky = false) {
  $('toast').textContent = text;
  if (text && !sticky) setTimeout(() => $('toast').textContent === text && toast(''), 4000);
}
$('toast').addEventListener('click', () => toast(''));

/** Server messages name lights by `_id`; a person knows them by name. */
const readable = (message) =>
  [...state.lights.values()].reduce((m, l) => m.replaceAll(l._id, `"${l.name}"`), message);

async function call(method, path, body) {
  const res = await fetch(api + path, {
    method,
    headers: body ? { 'Content-Type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = res.status === 204 ? null : await res.json().catch(() => null);
  if (!res.ok) throw new Error(data?.message ?? `HTTP ${res.status}`);
  return data;
}

// A refused command shows the server's message and puts the controls back to the confirmed state.
const run = (p) =>
  p.catch((err) => {
    toast(readable(err.message));
    render();
  });

/** Scene apply and group toggle answer 200 with the lights that failed; say which ones. */
function reportFailed(result) {
  const names = (result?.failed ?? []).map((f) => state.lights.get(f._id)?.name ?? f._id);
  if (names.length) toast(`Could not switch ${names.join(', ')}`);
}

const act = {
  toggle(id, on) {
    const light = state.lights.get(id);
    run(call('PUT', '/light/state', { _id: id, on, bri: on ? light?.lastBri || 255 : 0 }));
  },
  dim: (id, bri) => run(call('PUT', '/light/state', { _id: id, on: bri > 0, bri })),
};

function render() {
  $('site-name').textContent = state.name || 'Lights';
  document.title = `${state.name} · Hearth`;
  syncLightCards($('lights'), [...state.lights.values()], act);
  syncSceneButtons($('scenes'), state.scenes, (id) =>
    run(call('PUT', '/scene/apply', { _id: id }).then(reportFailed)),
  );
  syncGroupButtons(
    $('groups'),
    state.groups,
    (g) => g.lights.some((id) => state.lights.get(id)?.on),
    (id) => run(call('PUT', '/light/group/toggle', { _id: id }).then(reportFailed)),
  );
  $('events').replaceChildren(...orEmpty(state.events.slice(0, 10).map(eventItem), 'No sensor events yet'));
  $('connections').replaceChildren(
    ...orEmpty([...state.connections.values()].map(connectionItem), 'No drivers are running for this site'),
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
    state.scenes = d.scenes;
    state.groups = d.groups;
    state.connections = new Map(d.connections.map((c) => [c._id, c]));
  },
  siteChanged(d) {
    handlers.hello({ ...d, connections: [...state.connections.values()] });
  },
  setLightState: keepLight,
  connection: (c) => state.connections.set(c._id, c),
  eventSourceKey: (e) => state.events.unshift(e),
  sceneApplied: () => {},
  error: (d) => toast(readable(d.message)),
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
    run(
      call('GET', '/sensor/event').then((list) => {
        state.events = list;
        render();
      }),
    );
  };
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    handlers[msg.command]?.(msg.data);
    render();
  };
  ws.onclose = (ev) => {
    // 4001: the site key was changed or the site deleted. This link is dead; retrying would only 404.
    if (ev.code === 4001) {
      $('live').textContent = 'link expired';
      $('live').className = 'badge off';
      document.body.classList.add('offline');
      toast(
        `This page's link no longer works (${ev.reason || 'site key changed'}). Ask for the new link.`,
        true,
      );
      return;
    }
    setLive(false);
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 10000);
  };
}

connect();
