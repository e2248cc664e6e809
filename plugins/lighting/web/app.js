// Hearth household app: plain DOM, no build step, no third-party code. Commands go to the REST API
// (api.js), changes arrive over the site WebSocket; the views (home, setup, schedules, history) draw
// from one `state` and are switched by the URL's #fragment.
import { apiBase, call } from './api.js';
import { renderHome } from './home.js';
import { chooseLanguage, lang, t, translatePage } from './i18n.js';
import { foldReadings } from './readings.js';
import { lightProblem } from './words.js';

translatePage();
const languageSwitch = document.getElementById('lang');
languageSwitch.value = lang;
languageSwitch.addEventListener('change', (e) => {
  // Storage refused: the switch goes back to the language the page still shows.
  if (!chooseLanguage(e.target.value)) e.target.value = lang;
});
const state = {
  siteid: '',
  name: '',
  lights: new Map(),
  scenes: [],
  groups: [],
  sensors: [],
  events: [],
  connections: new Map(),
  /** Light id → `{level, seq}`: a command sent and not confirmed yet. */
  pending: new Map(),
  live: false,
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

/** Scene apply and group toggle answer 200 with the lights that failed; say which ones. */
function reportFailed(result) {
  const names = (result?.failed ?? []).map((f) => state.lights.get(f._id)?.name ?? t('aLight'));
  if (names.length) toast(t('couldNotSwitch', { names: names.join(', ') }));
}

let seq = 0;
/**
 * Sends a level and shows the light as pending until the hub confirms it: in the answer (`confirmed`), by a
 * `setLightState` push, or not at all — then, after PENDING_MS, the card shows what the hub last confirmed.
 */
function command(id, level) {
  const name = state.lights.get(id)?.name ?? t('theLight');
  const mine = ++seq;
  clearTimeout(state.pending.get(id)?.timer);
  const timer = setTimeout(() => {
    if (state.pending.get(id)?.seq !== mine) return;
    state.pending.delete(id);
    toast(t('notConfirmed', { name }));
    render();
  }, PENDING_MS);
  state.pending.set(id, { level, seq: mine, timer });
  render();
  return call('PUT', '/light/state', { _id: id, ...level })
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
      return { failed: [{ _id: id }] };
    });
}

function settle(id) {
  clearTimeout(state.pending.get(id)?.timer);
  state.pending.delete(id);
}

/** Runs a scene or group call and says, in words, what did not work. */
const onAction = (what) => (p) =>
  p.then(reportFailed).catch((err) => {
    toast(actionProblem(err, what));
    render();
  });

function actionProblem(err, what) {
  if (err.offline) return t('hubUnreachable');
  if (err.status === 404) return t(`${what}Gone`);
  return t(`${what}Failed`);
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
  scene: (id) => onAction('scene')(call('PUT', '/scene/apply', { _id: id })),
  group: (id) => onAction('group')(call('PUT', '/light/group/toggle', { _id: id })),
  /** Every light that is on goes off; the lights that did not are named. */
  async allOff() {
    const lit = [...state.lights.values()].filter((l) => l.on);
    const results = await Promise.all(lit.map((l) => command(l._id, { on: false, bri: 0 })));
    if (!results.some((r) => r?.failed)) toast(t('allOffDone'));
  },
};
$('all-off').addEventListener('click', () => act.allOff());

/** What every view gets: the state, the API, the toast and a way to redraw. */
const app = { state, call, toast, render: () => render(), act, events: new EventTarget() };
const idle = { render() {} };
const views = {
  home: { node: $('view-home'), render: () => renderHome(app), ready: true },
  setup: { node: $('view-setup'), ...idle },
  schedules: { node: $('view-schedules'), ...idle },
  history: { node: $('view-history'), ...idle },
};
// The other views load on first use: the first load of the app is the home view only.
const loaders = {
  setup: () => import('./setup.js').then((m) => m.setupView),
  schedules: () => import('./schedules.js').then((m) => m.schedulesView),
  history: () => import('./history.js').then((m) => m.historyView),
};
async function ensure(name) {
  const view = views[name];
  if (view.ready) return;
  view.ready = true;
  const make = await loaders[name]();
  Object.assign(view, make(app, view.node));
}
let current = 'home';

function render() {
  $('site-name').textContent = state.name || t('lights');
  document.title = `${state.name} · Hearth`;
  $('all-off').disabled = ![...state.lights.values()].some((l) => l.on);
  views[current].render();
}

/** Shows the view the URL's fragment names (#home, #setup, #schedules, #history). */
function route() {
  const wanted = location.hash.slice(1);
  const next = Object.hasOwn(views, wanted) ? wanted : 'home';
  const changed = next !== current;
  current = next;
  for (const [name, view] of Object.entries(views)) view.node.hidden = name !== current;
  for (const link of document.querySelectorAll('nav a'))
    link.toggleAttribute('aria-current', link.dataset.view === current);
  render();
  if (!changed) return;
  $('main').focus();
  const name = current;
  ensure(name)
    .then(() => {
      if (current !== name) return;
      views[name].open?.();
      render();
    })
    .catch(() => toast(t('hubUnreachable')));
}
window.addEventListener('hashchange', route);

/** Remembers each light's last non-zero level, so switching it on brings it back where it was. */
function keepLight(light) {
  const prev = state.lights.get(light._id);
  light.lastBri = light.on ? light.bri : prev?.lastBri;
  state.lights.set(light._id, light);
}

const handlers = {
  hello(d) {
    state.siteid = d.siteid;
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
    state.sensors = d.sensors ?? [];
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
  sensorReadings(r) {
    const sensor = state.sensors.find((s) => s._id === r._id);
    if (sensor) foldReadings(sensor, r);
  },
  sceneApplied: () => {},
  scheduleRan: () => {},
};

function setLive(live) {
  state.live = live;
  $('live').textContent = live ? t('live') : t('reconnecting');
  $('live').className = `badge ${live ? 'on' : 'off'}`;
  document.body.classList.toggle('offline', !live);
}

/** The saved app (from the service worker) says so while the device itself has no network. */
function showNetwork() {
  $('offline-note').hidden = navigator.onLine;
}
window.addEventListener('online', showNetwork);
window.addEventListener('offline', showNetwork);

let retry = 500;
function connect() {
  const ws = new WebSocket(
    `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${apiBase}/ws`,
  );
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
    app.events.dispatchEvent(new CustomEvent(msg.command, { detail: msg.data }));
    render();
  };
  ws.onclose = (ev) => {
    // 4001: the site key was changed or the site deleted. This link is dead; retrying would only 404.
    if (ev.code === 4001) {
      $('live').textContent = t('linkExpired');
      $('live').className = 'badge off';
      document.body.classList.add('offline');
      toast(t('linkDead'), true);
      return;
    }
    setLive(false);
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 10000);
  };
}

setLive(false);
showNetwork();
route();
connect();
// The household start page (/) brings this browser back here (start.js).
try {
  localStorage.setItem('hearth.household', location.pathname);
} catch {}
// The shell stays available without a network: a service worker keeps the page and its files.
if ('serviceWorker' in navigator)
  navigator.serviceWorker.register('/lighting/ui/sw.js', { scope: location.pathname }).catch(() => {});
