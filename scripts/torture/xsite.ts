/**
 * Cross-site probes: site A's key, token and MQTT credentials aimed at site B on REST, WebSocket and MQTT.
 * Nothing of B may be read or changed; afterwards B must be exactly as it was.
 */
import path from 'node:path';
import mqtt, { type MqttClient } from 'mqtt';
import WebSocket from 'ws';
import { siteToken, siteWithThings } from './fixtures.ts';
import { type HubProcess, startHub, workDir } from './hub.ts';
import { fail, newResult, type PartResult, sleep } from './report.ts';
import { clientBody } from './writes.ts';

/** A Home Assistant discovery config of a JSON-schema light. */
const announcement = (name: string) => {
  const id = name.replace(/\W/g, '');
  return {
    name,
    unique_id: id,
    schema: 'json',
    command_topic: `${id}/set`,
    state_topic: `${id}/state`,
    device: { identifiers: [id], name },
  };
};

type Site = Awaited<ReturnType<typeof siteWithThings>>;

/** Everything readable about a site, to compare before and after the probes. */
async function snapshot(h: HubProcess, s: Site): Promise<string> {
  const parts = await Promise.all(
    ['', '/light', '/light/group', '/scene', '/sensor'].map((p) =>
      h.call('main', 'GET', `/api/site/${s.sitekey}${p}`),
    ),
  );
  return JSON.stringify(
    parts.map((p) => p.body),
    (k, v) => (k === 'lastSeen' || k === 'updated' || k === 'connection' ? undefined : v),
  );
}

function wsOpen(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ ws: WebSocket | null; status: number; messages: string[] }> {
  return new Promise((resolve) => {
    const messages: string[] = [];
    const ws = new WebSocket(url, { headers });
    ws.on('message', (m) => messages.push(m.toString()));
    ws.once('open', () => resolve({ ws, status: 101, messages }));
    ws.once('unexpected-response', (_req, res) => {
      resolve({ ws: null, status: res.statusCode ?? 0, messages });
      ws.terminate();
    });
    ws.once('error', () => resolve({ ws: null, status: 0, messages }));
  });
}

export async function run(_: { budgetMs: number }): Promise<PartResult> {
  const r = newResult('cross-site probes');
  const dir = workDir('xsite');
  const h = await startHub({
    dataDir: path.join(dir, 'data'),
    logFile: path.join(dir, 'hub.log'),
    // B is where discovered devices land: a client of A announcing a device must not add it to B.
    config: { log: { level: 'error' }, plugins: { 'mqtt-devices': { discoverySite: 'SiteB' } } },
  });
  const A = await siteWithThings(h, 'SiteA');
  const B = await siteWithThings(h, 'SiteB');
  await h.call('main', 'PUT', `/api/site/${B.sitekey}/light/state`, { _id: B.light, on: true, bri: 10 });
  await sleep(300);
  const before = await snapshot(h, B);

  const expectRefused = async (label: string, send: () => Promise<{ status: number; text: string }>) => {
    r.trials += 1;
    const res = await send();
    if (res.status < 400 || res.status >= 500)
      fail(r, 'REST', `${label} → ${res.status} ${res.text.slice(0, 120)}`);
  };

  // REST with A's key and B's ids.
  const a = `/api/site/${A.sitekey}`;
  const probes: Array<[string, string, string, unknown]> = [
    ['PUT', `${a}/light/state`, 'switch B light', { _id: B.light, on: true, bri: 200 }],
    ['PUT', `${a}/light`, 'rename B light', { _id: B.light, name: 'pwned' }],
    ['DELETE', `${a}/light/${B.light}`, 'delete B light', undefined],
    ['PUT', `${a}/scene/apply`, 'apply B scene', { _id: B.scene }],
    ['PUT', `${a}/scene/${B.scene}/apply`, 'apply B scene by path', undefined],
    ['PUT', `${a}/scene`, 'rename B scene', { _id: B.scene, name: 'pwned' }],
    ['DELETE', `${a}/scene/${B.scene}`, 'delete B scene', undefined],
    [
      'POST',
      `${a}/scene`,
      'scene of A naming B light',
      { name: 'x', state: [{ _id: B.light, on: true, bri: 9 }] },
    ],
    [
      'PUT',
      `${a}/scene`,
      'A scene changed to B light',
      { _id: A.scene, state: [{ _id: B.light, on: true, bri: 9 }] },
    ],
    ['POST', `${a}/light/group`, 'group of A with B light', { name: 'x', lights: [B.light] }],
    ['PUT', `${a}/light/group`, 'A group changed to B light', { _id: A.group, lights: [B.light] }],
    ['PUT', `${a}/light/group/toggle`, 'toggle B group', { _id: B.group, on: true }],
    ['DELETE', `${a}/light/group/${B.group}`, 'delete B group', undefined],
    ['PUT', `${a}/sensor`, 'rename B sensor', { _id: B.sensor, name: 'pwned' }],
    [
      'POST',
      `${a}/sensor/action`,
      'bind B sensor',
      { _id: B.sensor, event: 'press', action: { type: 'light', _id: A.light, on: true, bri: 1 } },
    ],
    [
      'POST',
      `${a}/sensor/action`,
      'A sensor switches B light',
      { _id: A.sensor, event: 'press', action: { type: 'light', _id: B.light, on: true, bri: 1 } },
    ],
    [
      'POST',
      `${a}/sensor/action`,
      'A sensor applies B scene',
      { _id: A.sensor, event: 'press', action: { type: 'scene', _id: B.scene } },
    ],
    ['POST', `${a}/sensor/event`, 'press B sensor', { _id: B.sensor, event: 'press' }],
    ['DELETE', `${a}/sensor/${B.sensor}`, 'delete B sensor', undefined],
    [
      'PUT',
      `/site/${A.sitekey}/light/state`,
      'web UI switches B light',
      { _id: B.light, on: true, bri: 200 },
    ],
    ['PUT', `/site/${A.sitekey}/scene/apply`, 'web UI applies B scene', { _id: B.scene }],
  ];
  for (const [method, p, label, body] of probes)
    await expectRefused(`key A: ${label}`, () => h.call('main', method, p, body));

  // A's site token (every site scope) on B's id, and on A's id with B's things.
  const client = await h.admin('POST', '/admin/clients', {
    ...clientBody('site A device'),
    scope: 'lights:read lights:write scenes:apply sensors:write site:admin',
    resources: [`urn:hearth:site:${A.siteid}`],
  });
  const token = await siteToken(
    h,
    client.body.client_id,
    client.body.client_secret,
    A.siteid,
    'lights:read lights:write scenes:apply sensors:write site:admin',
  );
  const bearer = { authorization: `Bearer ${token}` };
  await expectRefused('token A: read B', () =>
    h.call('main', 'GET', `/api/site/${B.siteid}`, undefined, bearer),
  );
  await expectRefused('token A: list B lights', () =>
    h.call('main', 'GET', `/api/site/${B.siteid}/light`, undefined, bearer),
  );
  await expectRefused('token A: switch B light on B', () =>
    h.call('main', 'PUT', `/api/site/${B.siteid}/light/state`, { _id: B.light, on: true, bri: 5 }, bearer),
  );
  await expectRefused('token A: switch B light on A', () =>
    h.call('main', 'PUT', `/api/site/${A.siteid}/light/state`, { _id: B.light, on: true, bri: 5 }, bearer),
  );
  await expectRefused('token A: rename B site', () =>
    h.call('main', 'PUT', `/api/site/${B.siteid}`, { name: 'pwned' }, bearer),
  );
  await expectRefused('token A: B devices', () =>
    h.call('main', 'GET', `/api/mqtt/site/${B.siteid}/devices`, undefined, bearer),
  );
  await expectRefused('token A: translate without the scope', () =>
    h.call('main', 'POST', '/v2/translate', { text: ['x'], target_lang: 'DE' }, bearer),
  );
  await expectRefused('key A as B id', () =>
    h.call('main', 'GET', `/api/site/${B.siteid}/light`, undefined, { authorization: `Bearer ${A.sitekey}` }),
  );

  // WebSocket: A's key or token cannot open B's stream, and A's stream carries nothing of B.
  const wsBase = h.urls.main?.replace(/^http/, 'ws');
  for (const [label, url, headers] of [
    ['token A on B stream', `${wsBase}/api/site/${B.siteid}/ws`, bearer],
    [
      'key A as bearer on B stream',
      `${wsBase}/api/site/${B.siteid}/ws`,
      { authorization: `Bearer ${A.sitekey}` },
    ],
    ['no credential on B id', `${wsBase}/site/${B.siteid}/ws`, {}],
  ] as Array<[string, string, Record<string, string>]>) {
    r.trials += 1;
    const o = await wsOpen(url, headers);
    if (o.ws) {
      fail(r, 'WebSocket', `${label}: opened`);
      o.ws.terminate();
    }
  }
  const own = await wsOpen(`${wsBase}/api/site/${A.sitekey}/ws`);
  if (own.ws) {
    const replies: string[] = [];
    own.ws.on('message', (m) => replies.push(m.toString()));
    own.ws.send(JSON.stringify({ command: 'set', id: 1, data: { _id: B.light, on: true, bri: 77 } }));
    await h.call('main', 'PUT', `/api/site/${B.sitekey}/light`, { _id: B.light2, name: 'B spot renamed' });
    await sleep(500);
    r.trials += 2;
    if (replies.some((m) => m.includes('"ack"') && m.includes('"id":1')))
      fail(r, 'WebSocket', `key A stream: set of B light acknowledged`);
    const leaked = [...own.messages, ...replies].filter(
      (m) => m.includes(B.siteid) || m.includes(B.light2) || m.includes('B spot renamed'),
    );
    if (leaked.length) fail(r, 'WebSocket', `key A stream received B's: ${leaked[0]?.slice(0, 160)}`);
    own.ws.terminate();
    await h.call('main', 'PUT', `/api/site/${B.sitekey}/light`, { _id: B.light2, name: 'SiteB spot' });
  } else fail(r, 'WebSocket', `key A cannot open its own stream (${own.status})`);

  await mqttProbes(h, r, A, B, token);

  const after = await snapshot(h, B);
  r.trials += 1;
  if (after !== before)
    fail(r, 'site B changed', `before ${before.slice(0, 300)} … after ${after.slice(0, 300)}`);

  // The control: the same announcement from B's own credential does make a light on B, so the probe
  // above would have seen one made for A's clients.
  const bPw = (await h.admin('POST', '/admin/mqtt/credentials', { username: 'b-bridge', site: B.siteid }))
    .body.password;
  const b = await mqtt.connectAsync(`mqtt://127.0.0.1:${h.mqttPort}`, {
    username: 'b-bridge',
    password: bPw,
    reconnectPeriod: 0,
  });
  await b.publishAsync('homeassistant/light/controlb/config', JSON.stringify(announcement('control B')));
  await sleep(1500);
  await b.endAsync(true);
  const lights = await h.call('main', 'GET', `/api/site/${B.sitekey}/light`);
  if (!(lights.body as Array<{ name: string }>).some((l) => l.name === 'control B'))
    fail(
      r,
      'probe inconclusive',
      'a discovery announcement from site B itself made no light: the discovery probe proves nothing',
    );
  await h.stop();
  return r;
}

async function mqttProbes(h: HubProcess, r: PartResult, A: Site, B: Site, token: string): Promise<void> {
  const url = `mqtt://127.0.0.1:${h.mqttPort}`;
  const cred = async (username: string, site: string, topics?: string[]) => {
    const res = await h.admin('POST', '/admin/mqtt/credentials', {
      username,
      site,
      ...(topics ? { topics } : {}),
    });
    return res.body.password as string;
  };
  // B's device: a Tasmota plug with its own topic-limited credential, and a light on it.
  await h.admin('POST', '/admin/mqtt/devices', { mqttid: 'tasmota:bplug', site: B.siteid, kind: 'binary' });
  const device = await mqtt.connectAsync(url, {
    username: 'bplug',
    password: await cred('bplug', B.siteid, ['cmnd/bplug/#', 'stat/bplug/#', 'tele/bplug/#']),
    reconnectPeriod: 0,
    clientId: 'site-b-plug',
  });
  const deviceGot: string[] = [];
  device.on('message', (t, m) => deviceGot.push(`${t} ${m.toString()}`));
  await device.subscribeAsync('cmnd/bplug/#');

  // A's clients: a per-site credential, the site key, the site token.
  const clients: Array<[string, MqttClient | null]> = [];
  const connectAs = async (label: string, username: string, password: string) => {
    try {
      clients.push([
        label,
        await mqtt.connectAsync(url, { username, password, reconnectPeriod: 0, connectTimeout: 5000 }),
      ]);
    } catch {
      clients.push([label, null]);
    }
  };
  await connectAs('A site credential', 'a-bridge', await cred('a-bridge', A.siteid));
  await connectAs('A site key', 'whoever', A.sitekey);
  await connectAs('A site token', 'token', token);
  const got = new Map<string, string[]>();
  for (const [label, c] of clients) {
    if (!c) continue;
    got.set(label, []);
    c.on('message', (t, m) => got.get(label)?.push(`${t} ${m.toString().slice(0, 60)}`));
    for (const filter of [
      '#',
      '+/#',
      'stat/#',
      'tele/#',
      'stat/bplug/#',
      `hearth/${B.siteid}/#`,
      'hearth/+/#',
      '$SYS/#',
      'homeassistant/#',
    ]) {
      await c.subscribeAsync(filter, { qos: 0 }).catch(() => {});
    }
  }
  // B's device talks; B's light changes; A's clients publish at B's device and announce a device.
  await device.publishAsync('stat/bplug/POWER', 'ON');
  await device.publishAsync('tele/bplug/STATE', JSON.stringify({ POWER: 'ON' }));
  await h.call('main', 'PUT', `/api/site/${B.sitekey}/light/state`, { _id: B.light2, on: true });
  await h.call('main', 'PUT', `/api/site/${B.sitekey}/light/state`, { _id: B.light2, on: false });
  for (const [label, c] of clients) {
    if (!c || c.disconnected) continue;
    c.publish('cmnd/bplug/POWER', 'OFF');
    c.publish(`hearth/${B.siteid}/light/${B.light}/set`, JSON.stringify({ on: false }));
    c.publish(
      `homeassistant/light/${label.replace(/\W/g, '')}/config`,
      JSON.stringify(announcement(`evil ${label}`)),
    );
  }
  await sleep(1500);
  for (const [label, c] of clients) {
    r.trials += 1;
    const msgs = got.get(label) ?? [];
    const sys = msgs.filter((m) => m.startsWith('$SYS'));
    const leaked = msgs.filter((m) => !m.startsWith('$SYS') && (m.includes('bplug') || m.includes(B.siteid)));
    if (leaked.length) fail(r, 'MQTT read of site B', `${label}: ${leaked.slice(0, 3).join(' | ')}`);
    r.trials += 1;
    if (sys.length)
      fail(r, 'MQTT $SYS shows other clients', `${label}: ${sys.length} messages, e.g. ${sys[0]}`);
    c?.end(true);
  }
  r.trials += 1;
  const commanded = deviceGot.filter((m) => m.includes('POWER') && m.includes('OFF'));
  if (commanded.length) fail(r, 'MQTT command to site B', `B's device received ${commanded[0]}`);
  const lights = await h.call('main', 'GET', `/api/site/${B.sitekey}/light`);
  const evil = (lights.body as Array<{ name: string }>).filter((l) => l.name.startsWith('evil'));
  r.trials += 1;
  if (evil.length)
    fail(
      r,
      'MQTT discovery into site B',
      `lights ${evil.map((l) => l.name).join(', ')} created on B by site A clients`,
    );
  await device.endAsync(true);
}
