/**
 * The broker remembers its ACL decisions per connection and topic; these tests change what a decision
 * rests on while the same connection keeps using a topic it was already allowed, and expect the change to
 * apply at its very next message.
 */
import mqtt, { type MqttClient } from 'mqtt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AclCache, MAX_TOPICS } from '../../plugins/mqtt-devices/acl-cache.ts';
import { eventually, type MqttHub, startMqttHub } from './hub.ts';

describe('cached broker ACL decisions are dropped when what they rest on changes', () => {
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
  const connect = async (username: string, password: string) => {
    const c = await mqtt.connectAsync(h.t.mqttUrl, { username, password, reconnectPeriod: 0 });
    clients.push(c);
    return c;
  };
  /** Publishes the same topic often enough to be served from the cache, each one acknowledged. */
  const publishMany = async (c: MqttClient, topic: string, times = 5) => {
    for (let i = 0; i < times; i++) await c.publishAsync(topic, `${i}`, { qos: 1 });
  };
  const closes = (c: MqttClient) => new Promise<void>((resolve) => c.once('close', () => resolve()));

  it('a credential revoked while its connection keeps publishing: the next publish closes it', async () => {
    const pw = await h.credential('plug', ['shellies/plug-1/#']);
    const plug = await connect('plug', pw);
    await publishMany(plug, 'shellies/plug-1/relay/0');
    expect((await h.t.admin('DELETE', '/admin/mqtt/credentials/plug')).status).toBe(204);
    const closed = closes(plug);
    plug.publish('shellies/plug-1/relay/0', 'off');
    await closed;
  });

  it('a credential re-created for another site: the old connection loses its topics at once', async () => {
    const pw = await h.credential('bridge');
    const bridge = await connect('bridge', pw);
    await publishMany(bridge, 'zigbee2mqtt/lamp');
    expect((await h.t.admin('DELETE', '/admin/mqtt/credentials/bridge')).status).toBe(204);
    await h.credential('bridge', undefined, cabin.siteid);
    const closed = closes(bridge);
    bridge.publish('zigbee2mqtt/lamp', 'x');
    await closed;
  });

  it('a device moved to another site: its old site’s connection can no longer command it', async () => {
    const added = await h.t.admin('POST', '/admin/mqtt/devices', {
      mqttid: 'tasmota:lamp',
      site: h.siteid,
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const home = await connect('home-bridge', await h.credential('home-bridge'));
    await publishMany(home, 'cmnd/lamp/POWER');
    const moved = await h.t.admin('PATCH', '/admin/mqtt/devices/tasmota:lamp', { site: cabin.siteid });
    expect(moved.status).toBe(200);
    const closed = closes(home);
    home.publish('cmnd/lamp/POWER', 'ON');
    await closed;
  });

  it('a device moved to another site: its messages stop reaching the old site’s wildcard subscriber', async () => {
    const added = await h.t.admin('POST', '/admin/mqtt/devices', {
      mqttid: 'tasmota:lamp',
      site: h.siteid,
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const homeWatcher = await connect('home-watch', await h.credential('home-watch'));
    const cabinWatcher = await connect(
      'cabin-watch',
      await h.credential('cabin-watch', undefined, cabin.siteid),
    );
    const lamp = await connect('lamp', await h.credential('lamp', ['stat/lamp/#']));
    const atHome: string[] = [];
    const atCabin: string[] = [];
    homeWatcher.on('message', (_t, p) => atHome.push(p.toString()));
    cabinWatcher.on('message', (_t, p) => atCabin.push(p.toString()));
    await homeWatcher.subscribeAsync('stat/#');
    await cabinWatcher.subscribeAsync('stat/#');
    await publishMany(lamp, 'stat/lamp/POWER', 3);
    await eventually(() => atHome.length === 3 || undefined, 'the home watcher to get the lamp');
    expect(atCabin).toEqual([]);

    // The lamp's credential stays on the home site (as a bridge for both sites would); only the device moves.
    const moved = await h.t.admin('PATCH', '/admin/mqtt/devices/tasmota:lamp', { site: cabin.siteid });
    expect(moved.status).toBe(200);
    const closed = closes(lamp);
    lamp.publish('stat/lamp/POWER', 'moved');
    // A home credential may no longer publish on a cabin device's topic…
    await closed;
    const cabinLamp = await connect('cabin-lamp', await h.credential('cabin-lamp', undefined, cabin.siteid));
    await cabinLamp.publishAsync('stat/lamp/POWER', 'from-cabin', { qos: 1 });
    // …and what the device now says reaches the cabin, never the home watcher that got it a moment ago.
    await eventually(() => atCabin.includes('from-cabin') || undefined, 'the cabin watcher to get the lamp');
    expect(atHome).toEqual(['0', '1', '2']);
  });
});

describe('AclCache', () => {
  it('forgets every decision when the version changes, and holds at most MAX_TOPICS per action', () => {
    let version = 1;
    const cache = new AclCache(() => version);
    const client = {};
    cache.set(client, 'publish', 'a/b', 'allow');
    expect(cache.get(client, 'publish', 'a/b')).toBe('allow');
    expect(cache.get(client, 'deliver', 'a/b')).toBeUndefined();
    expect(cache.get({}, 'publish', 'a/b')).toBeUndefined();
    version = 2;
    expect(cache.get(client, 'publish', 'a/b')).toBeUndefined();

    for (let i = 0; i <= MAX_TOPICS; i++) cache.set(client, 'subscribe', `t/${i}`, 'deny');
    // The map was emptied when it was full, then took the last one.
    expect(cache.get(client, 'subscribe', 't/0')).toBeUndefined();
    expect(cache.get(client, 'subscribe', `t/${MAX_TOPICS}`)).toBe('deny');
  });
});
