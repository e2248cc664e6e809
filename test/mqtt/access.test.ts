/**
 * The embedded broker's doors for devices: anonymous off by default, device credentials (per site and
 * per device topic filters, removal takes effect at once), site keys limited to their own
 * `hearth/<site>/#`, and cross-site isolation of Hearth's topics, wildcards included.
 */
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { filterWithin } from '../../plugins/mqtt-devices/broker-access.ts';
import { eventually, type Json, type MqttHub, startMqttHub } from './hub.ts';

/** The CONNACK return code of a refused connection, or 0 when accepted. */
async function connackCode(url: string, opts: IClientOptions): Promise<number> {
  try {
    const c = await mqtt.connectAsync(url, { ...opts, reconnectPeriod: 0 });
    await c.endAsync();
    return 0;
  } catch (err) {
    return (err as { code?: number }).code ?? -1;
  }
}

/** The granted QoS per filter (128 = refused), one SUBSCRIBE each so one refusal does not hide the others. */
async function suback(c: MqttClient, filters: string[]): Promise<number[]> {
  const out: number[] = [];
  for (const f of filters) {
    try {
      out.push((await c.subscribeAsync(f))[0]!.qos);
    } catch (err) {
      out.push((err as { packet?: { granted?: number[] } }).packet?.granted?.[0] ?? -1);
    }
  }
  return out;
}

describe('broker access for devices and sites', () => {
  let h: MqttHub;
  let siteB: { siteid: string; sitekey: string };
  const clients: MqttClient[] = [];
  beforeEach(async () => {
    h = await startMqttHub();
    siteB = (await h.t.admin('POST', '/admin/sites', { name: 'Cabin' })).body as typeof siteB;
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.endAsync(true);
    await h.stop();
  });
  const connect = async (opts: IClientOptions) => {
    const c = await mqtt.connectAsync(h.t.mqttUrl, { ...opts, reconnectPeriod: 0 });
    clients.push(c);
    return c;
  };

  it('refuses anonymous clients, wrong passwords and unknown site keys', async () => {
    expect(await connackCode(h.t.mqttUrl, {})).toBe(5);
    await h.credential('plug-1');
    expect(await connackCode(h.t.mqttUrl, { username: 'plug-1', password: 'not-the-password' })).toBe(4);
    expect(await connackCode(h.t.mqttUrl, { username: 'x', password: 'no-such-site-key-000000' })).toBe(4);
  });

  it('one site can never read or write another site’s topics', async () => {
    const a = await connect({ username: 'a', password: h.sitekey });
    const b = await connect({ username: 'b', password: siteB.sitekey });
    const got: string[] = [];
    a.on('message', (t) => got.push(t));
    const granted = await suback(a, [
      `hearth/${h.siteid}/#`,
      `hearth/${siteB.siteid}/#`,
      'hearth/+/light/#',
      '#',
      '+/+/+/+',
    ]);
    expect(granted).toEqual([0, 128, 128, 128, 128]);
    await b.publishAsync(`hearth/${siteB.siteid}/sensor/x/event`, '{"event":"1"}');
    await a.publishAsync(`hearth/${h.siteid}/sensor/y/event`, '{"event":"1"}');
    await eventually(() => got.includes(`hearth/${h.siteid}/sensor/y/event`), 'own message');
    expect(got.some((t) => t.includes(siteB.siteid))).toBe(false);
    // A site key opens nothing outside hearth/<site>/.
    expect(await suback(a, ['zigbee2mqtt/#'])).toEqual([128]);
    // Publishing into another site closes the connection (MQTT 3.1.1 has no negative PUBACK).
    a.publish(`hearth/${siteB.siteid}/light/tasmota:x/set`, '{"on":true}');
    await eventually(() => !a.connected || undefined, 'the connection to close');
  });

  it('per-site and per-device credentials: device topics, own site only, revoked at once', async () => {
    const sitePw = await h.credential('z2m');
    const devPw = await h.credential('plug', ['shellies/plug-1/#']);
    const z2m = await connect({ username: 'z2m', password: sitePw });
    expect(
      await suback(z2m, ['zigbee2mqtt/#', `hearth/${h.siteid}/#`, `hearth/${siteB.siteid}/#`, '#']),
    ).toEqual([0, 0, 128, 128]);
    const plug = await connect({ username: 'plug', password: devPw });
    expect(
      await suback(plug, ['shellies/plug-1/relay/0/command', 'shellies/plug-2/#', 'shellies/#']),
    ).toEqual([0, 128, 128]);
    await plug.publishAsync('shellies/plug-1/relay/0', 'on');
    // Removing the credential: the next publish is refused and the connection closed.
    expect((await h.t.admin('DELETE', '/admin/mqtt/credentials/plug')).status).toBe(204);
    plug.publish('shellies/plug-1/relay/0', 'off');
    await eventually(() => !plug.connected || undefined, 'the connection to close');
    // MQTT 3.1.1 §3.2.2.3: 4, bad user name or password.
    expect(await connackCode(h.t.mqttUrl, { username: 'plug', password: devPw })).toBe(4);
  });

  it('admin API: credentials are listed without secrets, bad input gets 4xx JSON, secrets never logged', async () => {
    const created = await h.t.admin('POST', '/admin/mqtt/credentials', {
      username: 'tasmota-1',
      site: 'Home',
    });
    expect(created.status).toBe(201);
    const password = (created.body as Json).password as string;
    expect(password.length).toBeGreaterThanOrEqual(24);
    const list = (await h.t.admin('GET', '/admin/mqtt/credentials')).body as Json[];
    expect(list).toEqual([
      { username: 'tasmota-1', site: h.siteid, topics: null, created: expect.any(String) },
    ]);
    for (const [body, status] of [
      [{ username: 'tasmota-1', site: 'Home' }, 409],
      [{ username: 'bad name!', site: 'Home' }, 400],
      [{ username: 'x', site: 'Nowhere' }, 404],
      [{ username: 'x', site: 'Home', topics: ['#'] }, 400],
      [{ username: 'x', site: 'Home', topics: ['a/#/b'] }, 400],
      [{ username: 'x', site: 'Home', password: 'short' }, 400],
      [{ username: 'x', site: 'Home', colour: 'red' }, 400],
      [[1, 2], 400],
    ] as const) {
      const res = await h.t.admin('POST', '/admin/mqtt/credentials', body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect((res.body as Json).message).toEqual(expect.any(String));
    }
    expect((await h.t.admin('DELETE', '/admin/mqtt/credentials/nobody')).status).toBe(404);
    await connackCode(h.t.mqttUrl, { username: 'tasmota-1', password });
    await connackCode(h.t.mqttUrl, { username: 'x', password: h.sitekey });
    const text = JSON.stringify(h.t.logs);
    expect(text).not.toContain(password);
    expect(text).not.toContain(h.sitekey);
  });

  it('credentials of a deleted site go with it', async () => {
    const pw = await h.credential('cabin-plug', undefined, siteB.siteid);
    expect(await connackCode(h.t.mqttUrl, { username: 'cabin-plug', password: pw })).toBe(0);
    expect((await h.t.admin('DELETE', `/admin/sites/${siteB.siteid}`)).status).toBe(204);
    expect(await connackCode(h.t.mqttUrl, { username: 'cabin-plug', password: pw })).toBe(4);
  });
});

describe('site isolation on device topics (two sites)', () => {
  let h: MqttHub;
  let cabin: { siteid: string; sitekey: string };
  const clients: MqttClient[] = [];
  /** One device of each profile on each site. */
  const devices = (site: string) => [
    { mqttid: `tasmota:${site}-lamp`, own: `stat/${site}-lamp/RESULT`, cmnd: `cmnd/${site}-lamp/POWER` },
    {
      mqttid: `zigbee2mqtt:${site}-bulb`,
      own: `zigbee2mqtt/${site}-bulb`,
      cmnd: `zigbee2mqtt/${site}-bulb/set`,
    },
    {
      mqttid: `shelly1:${site}-relay`,
      own: `shellies/${site}-relay/relay/0`,
      cmnd: `shellies/${site}-relay/relay/0/command`,
    },
    { mqttid: `shelly2:${site}-plus`, own: `${site}-plus/events/rpc`, cmnd: `${site}-plus/rpc` },
  ];
  // One hub for the whole block (eight devices to register); the test that moves a device runs last.
  beforeAll(async () => {
    h = await startMqttHub();
    cabin = (await h.t.admin('POST', '/admin/sites', { name: 'Cabin' })).body as typeof cabin;
    for (const [site, name] of [
      [h.siteid, 'home'],
      [cabin.siteid, 'cabin'],
    ] as const)
      for (const d of devices(name)) {
        const res = await h.t.admin('POST', '/admin/mqtt/devices', { mqttid: d.mqttid, site });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
      }
    homePw = await h.credential('home-bridge');
    cabinPw = await h.credential('cabin-bridge', undefined, cabin.siteid);
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.endAsync(true);
  });
  afterAll(() => h.stop());
  let homePw = '';
  let cabinPw = '';
  const connect = async (username: string, password: string) => {
    const c = await mqtt.connectAsync(h.t.mqttUrl, { username, password, reconnectPeriod: 0 });
    clients.push(c);
    return c;
  };
  /** Whether publishing `topic` closes the client's connection (a refused PUBLISH, core README). */
  const publishRefused = async (username: string, password: string, topic: string) => {
    const c = await connect(username, password);
    c.publish(topic, 'x');
    // A PINGREQ round trip after the PUBLISH: when it answers, the broker has judged the PUBLISH.
    await Promise.race([
      new Promise<void>((resolve) => c.once('close', () => resolve())),
      c.publishAsync('unclaimed/probe', 'p', { qos: 1 }).catch(() => undefined),
    ]);
    return !c.connected;
  };

  it('a per-site credential subscribed to stat/#, tele/#, zigbee2mqtt/# … gets only its own site’s devices', async () => {
    const spy = await connect('cabin-bridge', cabinPw);
    const filters = ['stat/#', 'tele/#', 'zigbee2mqtt/#', 'shellies/#', 'home-plus/#', 'cabin-plus/#'];
    expect(await suback(spy, filters)).toEqual([0, 0, 0, 0, 128, 0]);
    const got: string[] = [];
    spy.on('message', (t) => got.push(t));
    const home = await connect('home-bridge', homePw);
    const cabinDevice = await connect('cabin-bridge', cabinPw);
    for (const d of devices('home')) await home.publishAsync(d.own, '{"state":"ON"}', { qos: 1 });
    for (const d of devices('cabin')) await cabinDevice.publishAsync(d.own, '{"state":"ON"}', { qos: 1 });
    const own = devices('cabin').map((d) => d.own);
    await eventually(() => own.every((t) => got.includes(t)) || undefined, 'the cabin devices’ messages');
    // The home devices' messages were published first on the same broker: they would have come first.
    expect(got.filter((t) => t.includes('home'))).toEqual([]);
  });

  it('a per-site credential cannot command, subscribe to or impersonate another site’s devices', async () => {
    const c = await connect('cabin-bridge', cabinPw);
    expect(
      await suback(c, [
        'stat/home-lamp/#',
        'zigbee2mqtt/home-bulb',
        'shellies/home-relay/#',
        'home-plus/rpc',
      ]),
    ).toEqual([128, 128, 128, 128]);
    for (const d of devices('home')) {
      expect(await publishRefused('cabin-bridge', cabinPw, d.cmnd), d.cmnd).toBe(true);
      expect(await publishRefused('cabin-bridge', cabinPw, d.own), d.own).toBe(true);
    }
    // Its own devices work.
    for (const d of devices('cabin'))
      expect(await publishRefused('cabin-bridge', cabinPw, d.cmnd)).toBe(false);
  });

  it('only the discovery site’s credentials may use discovery topics (no lights made on another site)', async () => {
    const watcher = await connect('home-bridge', homePw);
    const seen: string[] = [];
    watcher.on('message', (t) => seen.push(t));
    await watcher.subscribeAsync(['homeassistant/#', 'tasmota/discovery/#', 'zigbee2mqtt/bridge/#']);
    const intruder = await connect('cabin-bridge', cabinPw);
    const config = JSON.stringify({
      name: 'intruder',
      unique_id: 'intruder',
      command_topic: 'x/set',
      schema: 'json',
    });
    // Announced at every connection by Tasmota, ESPHome, zigbee2mqtt: acknowledged, kept connected, dropped.
    for (const topic of ['homeassistant/light/intruder/config', 'tasmota/discovery/AABBCCDDEEFF/config'])
      await intruder.publishAsync(topic, config, { qos: 1, retain: true });
    await intruder.publishAsync('zigbee2mqtt/bridge/devices', '[]', { qos: 1, retain: true });
    expect(intruder.connected).toBe(true);
    // The discovery site's own announcement gets through (and arrives after the dropped ones would have).
    const home = await connect('home-bridge', homePw);
    await home.publishAsync('homeassistant/light/fine/config', '', { qos: 1 });
    await eventually(
      () => seen.includes('homeassistant/light/fine/config') || undefined,
      'the home announcement',
    );
    expect(seen).toEqual(['homeassistant/light/fine/config']);
    const retained = (await h.t.admin('GET', '/admin/mqtt/retained')).body as Json[];
    expect(JSON.stringify(retained)).not.toContain('intruder');
    expect(JSON.stringify(retained)).not.toContain('AABBCCDDEEFF');
    expect(
      await suback(intruder, ['zigbee2mqtt/bridge/#', 'tasmota/discovery/#', 'homeassistant/light/x/config']),
    ).toEqual([128, 128, 128]);
    // Nothing a Cabin credential tried reached the discovery site as a light.
    const lights = (await h.site('GET', '/light')).body as Json[];
    expect(JSON.stringify(lights)).not.toContain('intruder');
  });

  it('$SYS/# is refused to site credentials and site keys (it lists every client id)', async () => {
    const c = await connect('cabin-bridge', cabinPw);
    const k = await connect('key', cabin.sitekey);
    expect(await suback(c, ['$SYS/#', '$SYS/+/clients/connected'])).toEqual([128, 128]);
    expect(await suback(k, ['$SYS/#'])).toEqual([128]);
  });

  it('a client id in use by one site cannot be taken over by another (CONNACK 2), only by its own site', async () => {
    const device = await mqtt.connectAsync(h.t.mqttUrl, {
      username: 'home-bridge',
      password: homePw,
      clientId: 'DVES_1A2B3C',
      reconnectPeriod: 0,
    });
    clients.push(device);
    expect(
      await connackCode(h.t.mqttUrl, {
        username: 'cabin-bridge',
        password: cabinPw,
        clientId: 'DVES_1A2B3C',
      }),
    ).toBe(2);
    expect(
      await connackCode(h.t.mqttUrl, { username: 'k', password: cabin.sitekey, clientId: 'DVES_1A2B3C' }),
    ).toBe(2);
    expect(device.connected).toBe(true);
    // The device's own site reconnecting (a half-open old session) takes it over as MQTT says.
    const gone = new Promise<void>((resolve) => device.once('close', () => resolve()));
    expect(
      await connackCode(h.t.mqttUrl, { username: 'home-bridge', password: homePw, clientId: 'DVES_1A2B3C' }),
    ).toBe(0);
    await gone;
  });

  it('a device moved to another site moves its topics with it', async () => {
    expect(await publishRefused('cabin-bridge', cabinPw, 'cmnd/home-lamp/POWER')).toBe(true);
    const moved = await h.t.admin('PATCH', '/admin/mqtt/devices/tasmota:home-lamp', { site: cabin.siteid });
    expect(moved.status).toBe(200);
    expect(await publishRefused('cabin-bridge', cabinPw, 'cmnd/home-lamp/POWER')).toBe(false);
  });
});

describe('operator credential: the whole bus for the admin’s tools', () => {
  let h: MqttHub;
  let cabin: { siteid: string; sitekey: string };
  const clients: MqttClient[] = [];
  beforeEach(async () => {
    h = await startMqttHub();
    cabin = (await h.t.admin('POST', '/admin/sites', { name: 'Cabin' })).body as typeof cabin;
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.endAsync(true);
    await h.stop();
  });
  const operator = async (username: string, access?: 'read' | 'readwrite') => {
    const res = await h.t.admin('POST', '/admin/mqtt/credentials', {
      username,
      operator: access ?? true,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return (res.body as Json).password as string;
  };
  const connect = async (opts: IClientOptions) => {
    const c = await mqtt.connectAsync(h.t.mqttUrl, { ...opts, reconnectPeriod: 0 });
    clients.push(c);
    return c;
  };

  it('read-only: subscribes to # and $SYS/#, sees every site, may not publish; created and used audited', async () => {
    const pw = await operator('explorer');
    const ops = await connect({ username: 'explorer', password: pw });
    expect(await suback(ops, ['#', '$SYS/#', 'hearth/+/status'])).toEqual([0, 0, 0]);
    const got: string[] = [];
    ops.on('message', (t) => got.push(t));
    const cabinPw = await h.credential('cabin-bridge', undefined, cabin.siteid);
    const dev = await connect({ username: 'cabin-bridge', password: cabinPw });
    await dev.publishAsync(`hearth/${cabin.siteid}/sensor/s/event`, '{"event":"1"}');
    await dev.publishAsync('zigbee2mqtt/cabin-bulb', '{"state":"ON"}');
    await eventually(() => got.includes('zigbee2mqtt/cabin-bulb') || undefined, 'the device message');
    expect(got).toContain(`hearth/${cabin.siteid}/sensor/s/event`);
    // Read-only: a PUBLISH closes the connection.
    ops.publish('cmnd/anything/POWER', 'ON');
    await eventually(() => !ops.connected || undefined, 'the connection to close');
    const logs = JSON.stringify(h.t.logs);
    expect(logs).toContain('mqtt.operator.created');
    expect(logs).toContain('mqtt.operator.connected');
    expect(logs).not.toContain(pw);
    const list = (await h.t.admin('GET', '/admin/mqtt/credentials')).body as Json[];
    expect(list).toContainEqual({
      username: 'explorer',
      site: null,
      topics: null,
      operator: 'read',
      created: expect.any(String),
    });
  });

  it('read-write on request; removed at once; only the admin creates one, with no site or topics', async () => {
    const pw = await operator('node-red', 'readwrite');
    const rw = await connect({ username: 'node-red', password: pw });
    await rw.publishAsync(`hearth/${cabin.siteid}/sensor/s/event`, '{"event":"1"}', { qos: 1 });
    expect(rw.connected).toBe(true);
    expect((await h.t.admin('DELETE', '/admin/mqtt/credentials/node-red')).status).toBe(204);
    expect(await suback(rw, ['#'])).toEqual([128]);
    for (const body of [
      { username: 'x', operator: 'admin' },
      { username: 'x', operator: 'read', site: 'Home' },
      { username: 'x', operator: 'read', topics: ['a/#'] },
    ]) {
      const res = await h.t.admin('POST', '/admin/mqtt/credentials', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    // A site key never becomes an operator: `#` stays refused.
    const k = await connect({ username: 'x', password: cabin.sitekey });
    expect(await suback(k, ['#'])).toEqual([128]);
  });
});

describe('admin API: retained messages of the embedded broker', () => {
  it('lists them (by filter, text of small UTF-8 payloads) and clears one topic or a filter', async () => {
    const h = await startMqttHub();
    const pw = await h.credential('z2m');
    const c = await mqtt.connectAsync(h.t.mqttUrl, { username: 'z2m', password: pw, reconnectPeriod: 0 });
    try {
      await c.publishAsync('zigbee2mqtt/lamp', '{"state":"ON"}', { retain: true, qos: 1 });
      await c.publishAsync('zigbee2mqtt/old/leftover', Buffer.from([0xff, 0xfe]), { retain: true, qos: 1 });
      await c.publishAsync('tele/plug/LWT', 'Online', { retain: true, qos: 1 });
      const all = (await h.t.admin('GET', '/admin/mqtt/retained')).body as Json[];
      expect(all).toContainEqual({ topic: 'zigbee2mqtt/lamp', bytes: 14, text: '{"state":"ON"}' });
      expect(all).toContainEqual({ topic: 'zigbee2mqtt/old/leftover', bytes: 2 });
      expect(all.some((m) => m.topic.startsWith('$SYS'))).toBe(false);
      const z2m = (
        await h.t.admin('GET', `/admin/mqtt/retained?filter=${encodeURIComponent('zigbee2mqtt/#')}`)
      ).body as Json[];
      expect(z2m.map((m) => m.topic)).toEqual(['zigbee2mqtt/lamp', 'zigbee2mqtt/old/leftover']);

      expect((await h.t.admin('DELETE', '/admin/mqtt/retained?topic=tele/plug/LWT')).status).toBe(204);
      expect((await h.t.admin('DELETE', '/admin/mqtt/retained?topic=tele/plug/LWT')).status).toBe(404);
      const cleared = await h.t.admin(
        'DELETE',
        `/admin/mqtt/retained?filter=${encodeURIComponent('zigbee2mqtt/#')}`,
      );
      expect(cleared.body).toEqual({ cleared: 2, topics: ['zigbee2mqtt/lamp', 'zigbee2mqtt/old/leftover'] });
      const after = (await h.t.admin('GET', '/admin/mqtt/retained')).body as Json[];
      expect(after.map((m) => m.topic)).not.toContain('zigbee2mqtt/lamp');
      expect(after.map((m) => m.topic)).not.toContain('tele/plug/LWT');
      // A late subscriber gets nothing retained any more.
      const late = await mqtt.connectAsync(h.t.mqttUrl, {
        username: 'z2m',
        password: pw,
        reconnectPeriod: 0,
      });
      const replayed: string[] = [];
      late.on('message', (t) => replayed.push(t));
      await late.subscribeAsync('zigbee2mqtt/#');
      await late.publishAsync('zigbee2mqtt/marker', 'm', { qos: 1 });
      await eventually(() => replayed.includes('zigbee2mqtt/marker') || undefined, 'the marker');
      expect(replayed).toEqual(['zigbee2mqtt/marker']);
      await late.endAsync(true);

      for (const [path, status] of [
        ['/admin/mqtt/retained?filter=a/%23/b', 400],
        ['/admin/mqtt/retained?limit=0', 400],
      ] as const)
        expect((await h.t.admin('GET', path)).status, path).toBe(status);
      for (const [path, status] of [
        ['/admin/mqtt/retained', 400],
        ['/admin/mqtt/retained?topic=a&filter=b', 400],
        ['/admin/mqtt/retained?topic=a/%23', 400],
      ] as const) {
        const res = await h.t.admin('DELETE', path);
        expect(res.status, path).toBe(status);
        expect((res.body as Json).message).toEqual(expect.any(String));
      }
      expect(JSON.stringify(h.t.logs)).toContain('mqtt.retained.cleared');
    } finally {
      await c.endAsync(true);
      await h.stop();
    }
  });
});

describe('anonymous clients on a trusted LAN (mqtt.allowAnonymous)', () => {
  it('keep the device topics but never reach hearth/<site>/…', async () => {
    const h = await startMqttHub({ mqtt: { allowAnonymous: true } });
    const c = await mqtt.connectAsync(h.t.mqttUrl, { reconnectPeriod: 0 });
    try {
      // Authenticated for no site: every filter that can match hearth/… is refused, wildcards first.
      expect(
        await suback(c, ['zigbee2mqtt/#', `hearth/${h.siteid}/#`, 'hearth/#', '#', '+/+/light/+/state']),
      ).toEqual([0, 128, 128, 128, 128]);
      await c.publishAsync('zigbee2mqtt/lamp', '{"state":"ON"}');
      expect(c.connected).toBe(true);
      c.publish(`hearth/${h.siteid}/light/tasmota:x/set`, '{"on":true}');
      await eventually(() => !c.connected || undefined, 'the connection to close');
    } finally {
      await c.endAsync(true);
      await h.stop();
    }
  });
});

describe('filterWithin', () => {
  it('only lets a request through when every topic it can match is allowed', () => {
    expect(filterWithin('shellies/a/#', 'shellies/a/relay/0')).toBe(true);
    expect(filterWithin('shellies/a/#', 'shellies/a/#')).toBe(true);
    expect(filterWithin('shellies/a/#', 'shellies/+/relay')).toBe(false);
    expect(filterWithin('cmnd/+/POWER', 'cmnd/a/POWER')).toBe(true);
    expect(filterWithin('cmnd/+/POWER', 'cmnd/a/#')).toBe(false);
    expect(filterWithin('a/b', 'a/b/c')).toBe(false);
  });
});
