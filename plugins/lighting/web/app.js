// Hearth lighting web UI: plain DOM, no build step, no third-party code. The site key is the last path
// segment of /site/<key>; commands go to the REST API, changes arrive over the site WebSocket.
const key = decodeURIComponent(location.pathname.split('/').filter(Boolean).pop() ?? '');
const api = `/api/site/${encodeURIComponent(key)}`;
const state = { name: '', lights: new Map(), scenes: [], groups: [], events: [], connections: new Map() };
const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (v !== false && v !== undefined) node.setAttribute(k, v === true ? '' : String(v));
  }
  node.append(...children);
  return node;
}

function toast(text) {
  $('toast').textContent = text;
  if (text) setTimeout(() => $('toast').textContent === text && toast(''), 4000);
}

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

const run = (p) => p.catch((err) => toast(err.message));
const setLight = (light, on, bri) => run(call('PUT', '/light/state', { _id: light._id, on, bri }));

function lightCard(light) {
  const toggle = el('input', {
    type: 'checkbox',
    role: 'switch',
    'aria-label': `${light.name} on`,
    checked: light.on,
    onchange: (e) => setLight(light, e.target.checked, e.target.checked ? light.lastBri || 255 : 0),
  });
  const card = el(
    'li',
    { 'data-light': light._id, class: light.on ? 'lit' : '' },
    el('span', {}, light.name),
    toggle,
  );
  if (light.type === 'dimmable') {
    card.append(
      el('input', {
        type: 'range',
        min: 0,
        max: 255,
        value: light.bri,
        'aria-label': `${light.name} brightness`,
        onchange: (e) => {
          const bri = Number(e.target.value);
          setLight(light, bri > 0, bri);
        },
      }),
    );
  }
  return card;
}

function render() {
  $('site-name').textContent = state.name || 'Lights';
  document.title = `${state.name} · Hearth`;
  const lights = [...state.lights.values()];
  $('lights').replaceChildren(
    ...(lights.length ? lights.map(lightCard) : [el('li', { class: 'muted' }, 'No lights yet')]),
  );
  $('scenes').replaceChildren(
    ...state.scenes.map((s) =>
      el(
        'button',
        { 'data-scene': s._id, onclick: () => run(call('PUT', '/scene/apply', { _id: s._id })) },
        s.name,
      ),
    ),
  );
  $('groups').replaceChildren(
    ...state.groups.map((g) => {
      const on = g.lights.some((id) => state.lights.get(id)?.on);
      return el(
        'button',
        {
          'data-group': g._id,
          class: on ? 'lit' : '',
          'aria-pressed': on,
          onclick: () => run(call('PUT', '/light/group/toggle', { _id: g._id })),
        },
        g.name,
      );
    }),
  );
  $('events').replaceChildren(
    ...state.events
      .slice(0, 10)
      .map((e) => el('li', {}, `${new Date(e.at).toLocaleTimeString()} · ${e.name}: ${e.event}`)),
  );
  $('connections').replaceChildren(
    ...[...state.connections.values()].map((c) =>
      el(
        'li',
        { 'data-connection': c._id },
        `${c._id} (${c.vendor}): ${c.connected ? 'connected' : 'disconnected'}`,
      ),
    ),
  );
}

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
  error: (d) => toast(d.message),
};

let retry = 500;
function connect() {
  const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${api}/ws`);
  ws.onopen = () => {
    retry = 500;
    $('live').textContent = 'live';
    $('live').className = 'badge on';
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
  ws.onclose = () => {
    $('live').textContent = 'offline';
    $('live').className = 'badge off';
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 10000);
  };
}

connect();
