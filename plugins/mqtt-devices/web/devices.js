// The MQTT devices of one site (key in the URL, as for the lights page): new and unavailable ones are
// marked; a device can be added as a light or sensor through the lighting site API, then it is accepted.
const key = decodeURIComponent(location.pathname.split('/').pop() ?? '');
const mine = `/api/mqtt/site/${encodeURIComponent(key)}`;
const site = `/api/site/${encodeURIComponent(key)}`;
const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) node.setAttribute(k, v);
  for (const c of children) node.append(c);
  return node;
}

async function call(method, path, body) {
  let res;
  try {
    res = await fetch(path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    // The browser's own text ("Failed to fetch") says nothing to a person.
    throw new Error('Could not reach the hub. Check the Wi-Fi connection and try again.');
  }
  const data = res.status === 204 ? null : await res.json().catch(() => null);
  if (!res.ok) throw new Error(data?.message ?? `HTTP ${res.status}`);
  return data;
}

async function add(d) {
  const name = d.name ?? d.mqttid;
  if (d.kind === 'sensor')
    await call('POST', `${site}/sensor`, {
      name,
      vendor: 'mqtt',
      mqttid: d.mqttid,
      type: 'button',
      events: d.events ?? [],
    });
  else await call('POST', `${site}/light`, { name, type: d.kind, vendor: 'mqtt', mqttid: d.mqttid });
  if (d.new) await call('POST', `${mine}/devices/${encodeURIComponent(d.mqttid)}/accept`);
}

async function render() {
  const [devices, lights, sensors] = await Promise.all([
    call('GET', `${mine}/devices`),
    call('GET', `${site}/light`),
    call('GET', `${site}/sensor`),
  ]);
  const used = new Set([...lights, ...sensors].map((x) => x.mqttid).filter(Boolean));
  $('devices').replaceChildren(
    ...devices.map((d) => {
      const badges = [];
      if (d.new) badges.push(el('span', { class: 'badge new' }, 'new'));
      if (d.available === false) badges.push(el('span', { class: 'badge unavailable' }, 'unavailable'));
      const added =
        d.kind === 'sensor'
          ? sensors.some((s) => s.mqttid === d.mqttid)
          : lights.some((l) => l.mqttid === d.mqttid);
      if (added) badges.push(el('span', { class: 'badge added' }, 'added'));
      const item = el('li', { 'data-mqttid': d.mqttid }, el('strong', {}, d.name ?? d.mqttid), ...badges);
      item.append(
        el(
          'div',
          { class: 'id' },
          `${d.mqttid} · ${d.kind}${d.on === undefined ? '' : d.on ? ` · on ${d.bri}` : ' · off'}`,
        ),
      );
      if (!added) {
        const b = el('button', { type: 'button' }, d.kind === 'sensor' ? 'Add as sensor' : 'Add as light');
        b.addEventListener('click', () => act(() => add(d)));
        item.append(b);
      }
      if (d.new && (added || used.has(d.mqttid))) {
        const b = el('button', { type: 'button' }, 'Accept');
        b.addEventListener('click', () =>
          act(() => call('POST', `${mine}/devices/${encodeURIComponent(d.mqttid)}/accept`)),
        );
        item.append(b);
      }
      return item;
    }),
  );
  $('status').textContent = devices.length ? '' : 'No MQTT devices yet.';
}

async function act(fn) {
  try {
    await fn();
    await render();
  } catch (err) {
    $('status').textContent = err.message;
  }
}

$('lights-link').href = `/site/${encodeURIComponent(key)}`;
act(async () => {});
setInterval(() => void render().catch(() => {}), 5000);
