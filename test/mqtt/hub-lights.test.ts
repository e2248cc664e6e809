/**
 * Through the real hub: a simulated Tasmota bulb authenticates with a device credential, the operator
 * adds it as a light on the site API (`mqttid`), PUT /light/state reaches the bulb as a command that is
 * not retained (no ghost switching), and the bulb's own report confirms the level. The credential the
 * README gives a Tasmota covers every topic it publishes on (a refused publish would disconnect it).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTasmotaBulb, type TasmotaBulb } from '../../scripts/simulators/tasmota-bulb.ts';
import { retainedUnder } from './fixtures.ts';
import { eventually, type MqttHub, startMqttHub } from './hub.ts';

describe('mqtt-devices through the hub', () => {
  let h: MqttHub;
  let bulb: TasmotaBulb | null = null;
  beforeEach(async () => {
    h = await startMqttHub();
  });
  afterEach(async () => {
    await bulb?.stop();
    bulb = null;
    await h.stop();
  });

  it('drives a Tasmota bulb from the site API and confirms from its report', async () => {
    const password = await h.credential('desk-bulb', ['cmnd/desk/#', 'stat/desk/#', 'tele/desk/#']);
    bulb = await startTasmotaBulb({ url: h.t.mqttUrl, topic: 'desk', username: 'desk-bulb', password });
    const created = await h.site('POST', '/light', {
      name: 'Desk',
      type: 'dimmable',
      vendor: 'mqtt',
      mqttid: 'tasmota:desk',
    });
    expect(created.status).toBe(201);
    const put = await h.site('PUT', '/light/state', { _id: created.body._id, on: true, bri: 128 });
    expect(put.status).toBe(200);
    await eventually(() => bulb!.power && bulb!.dimmer === 50, 'the bulb to switch on at 50 %');
    const light = await eventually(async () => {
      const l = (await h.site('GET', '/light')).body[0];
      return l.on ? l : undefined;
    }, 'the reported level');
    expect(light).toMatchObject({ on: true, bri: 128, mqttid: 'tasmota:desk' });
    const commands = bulb.received.filter((r) => r.topic.startsWith('cmnd/desk/') && r.payload !== '');
    expect(commands.length).toBeGreaterThan(0);
    // The broker clears the retain flag on live deliveries: only a late subscriber tells.
    const late = { username: 'late', password: await h.credential('late') };
    expect(await retainedUnder(h.t.mqttUrl, 'cmnd/#', 'cmnd/sentinel/x', late)).toEqual([]);
    // The device is remembered for the next start.
    const devices = await h.t.admin('GET', '/admin/mqtt/devices');
    expect(devices.body).toEqual([
      expect.objectContaining({ mqttid: 'tasmota:desk', source: 'implicit', new: false }),
    ]);
  });

  it('a Tasmota with the credential the README gives announces itself and stays connected', async () => {
    const topics = (t: string) => [`cmnd/${t}/#`, `stat/${t}/#`, `tele/${t}/#`, 'tasmota/discovery/#'];
    bulb = await startTasmotaBulb({
      url: h.t.mqttUrl,
      topic: 'bath',
      discovery: true,
      username: 'tasmota-bath',
      password: await h.credential('tasmota-bath', topics('bath')),
    });
    const d = await eventually(async () => {
      const list = (await h.t.admin('GET', '/admin/mqtt/devices')).body as Array<{ mqttid: string }>;
      return list.find((x) => x.mqttid === 'tasmota:bath');
    }, 'the announced Tasmota');
    expect(d).toMatchObject({ kind: 'dimmable', new: true });
    expect(bulb.client.connected).toBe(true);
    // Without the discovery topic its first publish there is refused, which closes the connection.
    const bare = await startTasmotaBulb({
      url: h.t.mqttUrl,
      topic: 'loo',
      discovery: true,
      reconnectMs: 60_000,
      username: 'tasmota-loo',
      password: await h.credential('tasmota-loo', topics('loo').slice(0, 3)),
    });
    try {
      await eventually(() => !bare.client.connected || undefined, 'the refused announcement to close it');
    } finally {
      bare.crash();
    }
  });
});
