/**
 * Hearth's topics carry every light and sensor of a site, not only MQTT ones (README "Hearth's own topics"): a light of the built-in `virtual` driver has its retained state on
 * `hearth/<site>/light/<_id>/state` and obeys `…/set`, an event of the lighting test driver's sensor goes
 * out on `…/sensor/<_id>/action`, Home Assistant discovery announces both, another site cannot command it,
 * a deleted light's retained topics are withdrawn, and its state is republished after a hub restart.
 */
import mqtt, { type MqttClient } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { testDriverType } from '../lighting/test-driver.ts';
import { retainedUnder, startMosquitto, within } from './fixtures.ts';
import { eventually, type Json, type MqttHub, startMqttHub } from './hub.ts';

const stops: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const s of stops.splice(0).reverse()) await s();
});

const VIRTUAL = { plugins: { lighting: { drivers: [{ id: 'demo', type: 'virtual', site: 'Home' }] } } };

async function watch(url: string, password: string, filter: string) {
  const client: MqttClient = await mqtt.connectAsync(url, { username: 'node-red', password });
  stops.push(() => client.endAsync());
  const seen: Array<{ topic: string; payload: string }> = [];
  client.on('message', (topic, p) => seen.push({ topic, payload: p.toString() }));
  await client.subscribeAsync(filter);
  return { client, seen };
}

/**
 * The retained payload at `topic` as a late subscriber gets it (null: none). A retained sentinel, subscribed
 * to in the same SUBSCRIBE after `topic`, bounds the wait: the broker sends one packet's retained messages
 * in the order of its filters, so once the sentinel is in, `topic`'s would have been too.
 */
async function retained(url: string, password: string, topic: string): Promise<string | null> {
  const c = await mqtt.connectAsync(url, { username: 'late', password, reconnectPeriod: 0 });
  const sentinel = `${topic.split('/').slice(0, 2).join('/')}/test-sentinel/${Math.random().toString(16).slice(2)}`;
  try {
    let got: string | null = null;
    let sentinelSeen = () => {};
    const bounded = new Promise<void>((resolve) => {
      sentinelSeen = resolve;
    });
    c.on('message', (t, p, packet) => {
      if (!packet.retain) return;
      if (t === sentinel) sentinelSeen();
      else if (t === topic) got = p.toString();
    });
    await c.publishAsync(sentinel, 'sentinel', { retain: true });
    await c.subscribeAsync([topic, sentinel]);
    await within(bounded, 'the retained sentinel');
    await c.publishAsync(sentinel, '', { retain: true });
    return got;
  } finally {
    await c.endAsync();
  }
}

describe('hearth/<site>/ topics for lights and sensors of any vendor', () => {
  it('a virtual light: retained state, commands on …/set, HA discovery; a test-driver sensor event goes out', async () => {
    const h: MqttHub = await startMqttHub({
      ...VIRTUAL,
      plugins: { ...VIRTUAL.plugins, 'mqtt-devices': { publishHomeAssistant: true } },
    });
    stops.push(() => h.stop());
    const { factory, instances } = testDriverType();
    h.lighting.registerDriverType('test', factory);
    await h.lighting.addDriver({ id: 'td', type: 'test', site: h.siteid });
    const desk = (
      await h.site('POST', '/light', { name: 'Desk', type: 'dimmable', vendor: 'virtual', virtualid: 'desk' })
    ).body;
    const button = (
      await h.site('POST', '/sensor', {
        name: 'Button',
        vendor: 'test',
        testid: 'b1',
        type: 'button',
        events: ['1'],
      })
    ).body;
    const base = `hearth/${h.siteid}/light/${desk._id}`;
    const { client, seen } = await watch(h.t.mqttUrl, h.sitekey, `hearth/${h.siteid}/#`);

    await client.publishAsync(`${base}/set`, JSON.stringify({ on: true, bri: 128 }));
    await eventually(
      () => seen.find((m) => m.topic === `${base}/state` && JSON.parse(m.payload).bri === 128),
      'the state of the virtual light',
    );
    expect((await h.site('GET', '/light')).body[0]).toMatchObject({ on: true, bri: 128 });
    expect(JSON.parse((await retained(h.t.mqttUrl, h.sitekey, `${base}/state`)) ?? '{}')).toEqual({
      state: 'ON',
      brightness: 128,
      on: true,
      bri: 128,
    });
    // Home Assistant's payloads: "OFF", then "ON" alone comes back at the last level.
    await client.publishAsync(`${base}/set`, JSON.stringify({ state: 'OFF' }));
    await eventually(async () => (await h.site('GET', '/light')).body[0].on === false || undefined, 'off');
    await client.publishAsync(`${base}/set`, JSON.stringify({ state: 'ON' }));
    await eventually(
      async () => (await h.site('GET', '/light')).body[0].bri === 128 || undefined,
      'on again',
    );
    // Hearth never leaves a command retained.
    expect(await retained(h.t.mqttUrl, h.sitekey, `${base}/set`)).toBeNull();

    instances.get('td')!.press('b1', '1');
    await eventually(
      () =>
        seen.find((m) => m.topic === `hearth/${h.siteid}/sensor/${button._id}/action` && m.payload === '1'),
      'the sensor event of the test driver',
    );

    const ha = await mqtt.connectAsync(h.t.mqttUrl, {
      username: 'ha',
      password: await h.credential('ha', ['homeassistant/#']),
    });
    stops.push(() => ha.endAsync());
    const configs = new Map<string, string>();
    ha.on('message', (topic, p) => configs.set(topic, p.toString()));
    await ha.subscribeAsync('homeassistant/#');
    const lightConfig = `homeassistant/light/hearth_${h.siteid}/${desk._id}/config`;
    const c = JSON.parse(await eventually(() => configs.get(lightConfig), 'the HA light config'));
    expect(c).toMatchObject({
      name: 'Desk',
      command_topic: `${base}/set`,
      state_topic: `${base}/state`,
      availability: [{ topic: `hearth/${h.siteid}/status` }],
      brightness: true,
    });
    const trigger = JSON.parse(
      await eventually(
        () => configs.get(`homeassistant/device_automation/hearth_${h.siteid}/${button._id}_1/config`),
        'the HA trigger config',
      ),
    );
    expect(trigger).toMatchObject({ topic: `hearth/${h.siteid}/sensor/${button._id}/action`, payload: '1' });

    // Deleting the light withdraws its retained state and its HA config.
    expect((await h.site('DELETE', `/light/${desk._id}`)).status).toBe(204);
    await eventually(() => configs.get(lightConfig) === '' || undefined, 'the withdrawn HA config');
    await eventually(
      async () => ((await retained(h.t.mqttUrl, h.sitekey, `${base}/state`)) === null ? true : undefined),
      'the withdrawn state',
    );
  });

  it('another site cannot command a light through its own topics', async () => {
    const h = await startMqttHub(VIRTUAL);
    stops.push(() => h.stop());
    const desk = (
      await h.site('POST', '/light', { name: 'Desk', type: 'dimmable', vendor: 'virtual', virtualid: 'desk' })
    ).body;
    const cabin = (await h.t.admin('POST', '/admin/sites', { name: 'Cabin' })).body as Json;
    const other = await mqtt.connectAsync(h.t.mqttUrl, { username: 'cabin', password: cabin.sitekey });
    stops.push(() => other.endAsync());
    await other.publishAsync(`hearth/${cabin.siteid}/light/${desk._id}/set`, '{"on":true,"bri":200}');
    const own = await mqtt.connectAsync(h.t.mqttUrl, { username: 'home', password: h.sitekey });
    stops.push(() => own.endAsync());
    await own.publishAsync(`hearth/${h.siteid}/light/${desk._id}/set`, '{"on":true,"bri":20}');
    await eventually(
      async () => (await h.site('GET', '/light')).body[0].bri === 20 || undefined,
      'own command',
    );
    // The other site's command was handled (and refused) once its log line is there: no sleep needed.
    await eventually(
      () =>
        h.t.logs.some((l: Json) => JSON.stringify(l).includes('hearth topic command failed')) || undefined,
      'the refusal of the other site command',
    );
    expect((await h.site('GET', '/light')).body[0].bri).toBe(20);
  });

  it("republishes a virtual light's retained state after a hub restart (the embedded broker lost it)", async () => {
    const h = await startMqttHub(VIRTUAL);
    let hub = h.t;
    stops.push(() => hub.stop());
    const desk = (
      await h.site('POST', '/light', { name: 'Desk', type: 'dimmable', vendor: 'virtual', virtualid: 'desk' })
    ).body;
    expect((await h.site('PUT', '/light/state', { _id: desk._id, on: true, bri: 77 })).status).toBe(200);
    await eventually(
      async () => (await h.site('GET', '/light')).body[0].bri === 77 || undefined,
      'confirmed',
    );
    hub = await hub.restart();
    const topic = `hearth/${h.siteid}/light/${desk._id}/state`;
    const payload = await eventually(
      async () => (await retained(hub.mqttUrl, h.sitekey, topic)) ?? undefined,
      'the republished state',
    );
    expect(JSON.parse(payload)).toMatchObject({ on: true, bri: 77 });
    // Nothing is left retained on a …/set topic (Hearth never publishes a retained command).
    expect(
      await retainedUnder(
        hub.mqttUrl,
        `hearth/${h.siteid}/light/+/set`,
        `hearth/${h.siteid}/light/sentinel/set`,
        {
          username: 'x',
          password: h.sitekey,
        },
      ),
    ).toEqual([]);
  });

  it('withdraws Home Assistant configs the external broker still retains for lights and sites that are gone', async () => {
    const broker = await startMosquitto();
    stops.push(() => broker.stop());
    const h = await startMqttHub({
      ...VIRTUAL,
      plugins: { ...VIRTUAL.plugins, 'mqtt-devices': { publishHomeAssistant: true } },
      mqtt: { external: { url: broker.url } },
    });
    let hub = h.t;
    stops.push(() => hub.stop());
    const desk = (
      await h.site('POST', '/light', { name: 'Desk', type: 'dimmable', vendor: 'virtual', virtualid: 'desk' })
    ).body;
    const deskConfig = `homeassistant/light/hearth_${h.siteid}/${desk._id}/config`;
    const configs = () => retainedUnder(broker.url, 'homeassistant/#', 'homeassistant/sentinel');
    await eventually(async () => (await configs()).includes(deskConfig) || undefined, 'the desk config');

    // Left on the broker from before: a light of this site and a whole site that no longer exist, and a
    // config of something else (not Hearth's) that must stay.
    const ghost = `homeassistant/light/hearth_${h.siteid}/0123456789abcdef01234567/config`;
    const goneSite = 'homeassistant/light/hearth_fedcba9876543210fedcba98/0123456789abcdef01234567/config';
    const foreign = 'homeassistant/light/kitchen/lamp/config';
    const other = await mqtt.connectAsync(broker.url);
    for (const topic of [ghost, goneSite, foreign])
      await other.publishAsync(topic, JSON.stringify({ name: 'left over' }), { retain: true });
    await other.endAsync();
    // Published while the hub runs, they are live messages to it; the next subscription replays them.
    hub = await hub.restart();
    const left = await eventually(async () => {
      const now = await configs();
      return now.includes(ghost) || now.includes(goneSite) ? undefined : now;
    }, 'the left-over configs withdrawn');
    expect(left).toContain(deskConfig);
    expect(left).toContain(foreign);
  });
});
