/**
 * Discovery through the real hub: zigbee2mqtt's bridge/devices and Home Assistant configs put devices on
 * the discovery site, marked new (admin API and the site's GET /connection); devices that vanish from the
 * list or withdraw their config, and devices whose last will fires, are marked unavailable, never deleted.
 */
import mqtt from 'mqtt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHaJsonBulb } from '../../scripts/simulators/ha-json-bulb.ts';
import { startTasmotaBulb } from '../../scripts/simulators/tasmota-bulb.ts';
import { startZigbee2mqtt } from '../../scripts/simulators/zigbee2mqtt.ts';
import { eventually, type Json, type MqttHub, startMqttHub } from './hub.ts';

describe('discovery and availability', () => {
  let h: MqttHub;
  const stops: Array<() => Promise<void> | void> = [];
  beforeEach(async () => {
    h = await startMqttHub({ mqtt: { allowAnonymous: true } });
  });
  afterEach(async () => {
    for (const s of stops.splice(0)) await s();
    await h.stop();
  });

  const devices = async () => (await h.t.admin('GET', '/admin/mqtt/devices')).body as Json[];
  const device = async (id: string) => (await devices()).find((d) => d.mqttid === id);

  it('zigbee2mqtt devices appear as new on the discovery site; a removed one becomes unavailable', async () => {
    const z2m = await startZigbee2mqtt({
      url: h.t.mqttUrl,
      devices: [
        { name: 'hall', type: 'bulb' },
        { name: 'hall switch', type: 'switch' },
      ],
    });
    stops.push(() => z2m.stop());
    await eventually(
      async () => ((await devices()).length === 2 ? true : undefined),
      'two discovered devices',
    );
    expect(await device('zigbee2mqtt:hall')).toMatchObject({
      site: h.siteid,
      kind: 'dimmable',
      new: true,
      source: 'zigbee2mqtt',
    });
    expect(await device('zigbee2mqtt:hall switch')).toMatchObject({
      kind: 'sensor',
      new: true,
      events: ['on', 'off', 'brightness_move_up', 'brightness_move_down'],
    });
    const conn = (await h.site('GET', '/connection')).body.find((c: Json) => c.vendor === 'mqtt');
    expect(conn.detail.new.sort()).toEqual(['zigbee2mqtt:hall', 'zigbee2mqtt:hall switch']);

    // The operator accepts one; it is no longer new.
    const accepted = await h.t.admin(
      'PATCH',
      `/admin/mqtt/devices/${encodeURIComponent('zigbee2mqtt:hall')}`,
      { new: false },
    );
    expect(accepted.status).toBe(200);
    expect((accepted.body as Json).new).toBe(false);

    await z2m.remove('hall switch');
    const gone = await eventually(async () => {
      const d = await device('zigbee2mqtt:hall switch');
      return d?.gone ? d : undefined;
    }, 'the removed switch to be marked');
    expect(gone).toMatchObject({ available: false, gone: true });
    expect(await device('zigbee2mqtt:hall')).toMatchObject({ gone: false, new: false });
  });

  it('zigbee2mqtt going away (bridge/state last will) marks all its devices unavailable until it is back', async () => {
    const spec = [
      { name: 'attic', type: 'bulb' as const },
      { name: 'attic switch', type: 'switch' as const },
    ];
    const z2m = await startZigbee2mqtt({ url: h.t.mqttUrl, devices: spec });
    const availability = async () =>
      (await devices())
        .map((d) => `${d.mqttid} ${d.available}`)
        .sort()
        .join(', ');
    await eventually(
      async () =>
        (await availability()) === 'zigbee2mqtt:attic switch true, zigbee2mqtt:attic true' || undefined,
      'both online',
    );
    z2m.crash(); // ungraceful: the broker publishes the retained `bridge/state {"state":"offline"}`
    await eventually(
      async () =>
        (await availability()) === 'zigbee2mqtt:attic false, zigbee2mqtt:attic switch false' || undefined,
      'both unavailable',
    );
    const conn = (await h.site('GET', '/connection')).body.find((c: Json) => c.vendor === 'mqtt');
    expect(conn.detail.unavailable.sort()).toEqual(['zigbee2mqtt:attic', 'zigbee2mqtt:attic switch']);
    const back = await startZigbee2mqtt({ url: h.t.mqttUrl, devices: spec });
    stops.push(() => back.stop());
    await eventually(
      async () =>
        (await availability()) === 'zigbee2mqtt:attic switch true, zigbee2mqtt:attic true' || undefined,
      'both back online',
    );
  });

  it('a Home Assistant light is discovered, withdrawn (unavailable, kept), and its last will marks it offline', async () => {
    const bulb = await startHaJsonBulb({ url: h.t.mqttUrl, node: 'esp1' });
    await eventually(() => device('ha:esp1-light'), 'the HA light');
    await eventually(
      async () => ((await device('ha:esp1-light'))?.available === true ? true : undefined),
      'online',
    );
    expect(await device('ha:esp-esp1')).toMatchObject({ kind: 'sensor', events: ['short'] });

    bulb.crash(); // ungraceful: the broker publishes `esphome/esp1/status offline`
    await eventually(
      async () => ((await device('ha:esp1-light'))?.available === false ? true : undefined),
      'the last will',
    );
    const conn = (await h.site('GET', '/connection')).body.find((c: Json) => c.vendor === 'mqtt');
    expect(conn.detail.unavailable).toContain('ha:esp1-light');

    const again = await startHaJsonBulb({ url: h.t.mqttUrl, node: 'esp1' });
    stops.push(() => again.stop());
    await eventually(
      async () => ((await device('ha:esp1-light'))?.available === true ? true : undefined),
      'back online',
    );
    await again.unannounce();
    const withdrawn = await eventually(async () => {
      const d = await device('ha:esp1-light');
      return d?.gone ? d : undefined;
    }, 'the withdrawn config');
    expect(withdrawn.available).toBe(false);
  });

  it('a Tasmota LWT Offline is published as unavailable on the hearth availability topic', async () => {
    const bulb = await startTasmotaBulb({ url: h.t.mqttUrl, topic: 'porch' });
    await h.t.admin('POST', '/admin/mqtt/devices', {
      mqttid: 'tasmota:porch',
      site: h.siteid,
      name: 'Porch',
    });
    const light = (
      await h.site('POST', '/light', {
        name: 'Porch',
        type: 'dimmable',
        vendor: 'mqtt',
        mqttid: 'tasmota:porch',
      })
    ).body;
    const watcher = await mqtt.connectAsync(h.t.mqttUrl, { password: h.sitekey, username: 'watcher' });
    stops.push(() => watcher.endAsync());
    const seen: string[] = [];
    watcher.on('message', (t, p) => seen.push(`${t} ${p.toString()}`));
    await watcher.subscribeAsync(`hearth/${h.siteid}/light/+/availability`);
    const topic = `hearth/${h.siteid}/light/${light._id}/availability`;
    await eventually(() => seen.includes(`${topic} online`), 'online');
    bulb.crash();
    await eventually(() => seen.includes(`${topic} offline`), 'offline');
    expect(await device('tasmota:porch')).toMatchObject({
      available: false,
      name: 'Porch',
      source: 'registered',
    });
  });

  it('a Tasmota announcing itself (tasmota/discovery) is a new dimmable light whose button drives actions', async () => {
    const bulb = await startTasmotaBulb({ url: h.t.mqttUrl, topic: 'tas1', discovery: true });
    stops.push(() => bulb.stop());
    const d = await eventually(() => device('tasmota:tas1'), 'the Tasmota device');
    expect(d).toMatchObject({
      kind: 'dimmable',
      new: true,
      source: 'tasmota',
      name: 'Bulb tas1',
      site: h.siteid,
    });
    expect(d.events).toContain('button1-single');
    const light = (
      await h.site('POST', '/light', {
        name: 'Tas',
        type: 'dimmable',
        vendor: 'mqtt',
        mqttid: 'tasmota:tas1',
      })
    ).body;
    const sensor = (
      await h.site('POST', '/sensor', {
        name: 'Tas button',
        vendor: 'mqtt',
        mqttid: 'tasmota:tas1',
        type: 'button',
        events: d.events,
      })
    ).body;
    await h.site('POST', '/sensor/action', {
      _id: sensor._id,
      event: 'button1-single',
      action: { type: 'light', _id: light._id, on: true, bri: 255 },
    });
    await bulb.press(1, 'SINGLE');
    await eventually(() => (bulb.power && bulb.dimmer === 100) || undefined, 'the button action');
  });
});

describe('the discovery site setting', () => {
  it('puts discovered devices on the configured site, not the first one', async () => {
    const h = await startMqttHub({
      mqtt: { allowAnonymous: true },
      plugins: { 'mqtt-devices': { discoverySite: 'Cabin' } },
    });
    const z2m = await startZigbee2mqtt({ url: h.t.mqttUrl, devices: [{ name: 'loft', type: 'bulb' }] });
    const notices = async () =>
      ((await (await fetch(`${h.t.url}/ready`)).json()) as Json).notices.map((n: Json) => n.id);
    try {
      expect(await notices()).toContain('discovery-site');
      // The site is created after the hub started and after zigbee2mqtt published its retained list: the
      // new instance learns it from the replay on subscribe (regression: the in-process link dropped
      // messages replayed before its start()), and it alone discovers.
      const cabin = (await h.t.admin('POST', '/admin/sites', { name: 'Cabin' })).body as Json;
      const found = await eventually(async () => {
        const list = (await h.t.admin('GET', '/admin/mqtt/devices')).body as Json[];
        return list.find((d) => d.mqttid === 'zigbee2mqtt:loft');
      }, 'the discovered bulb');
      expect(found).toMatchObject({ site: cabin.siteid, new: true });
      expect(await notices()).not.toContain('discovery-site');
      const home = (await h.site('GET', '/connection')).body.find((c: Json) => c.vendor === 'mqtt');
      expect(home.detail.new).toEqual([]);
      expect(home.detail.devices).toBe(0);
    } finally {
      await z2m.stop();
      await h.stop();
    }
  });
});
