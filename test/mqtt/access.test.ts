/**
 * The embedded broker's doors for devices: anonymous off by default, device credentials (per site and
 * per device topic filters, removal takes effect at once), site keys limited to their own
 * `hearth/<site>/#`, and cross-site isolation of Hearth's topics, wildcards included.
 */
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
