/**
 * Broker restarts (docs/mqtt-devices.md#the-embedded-broker): an aedes broker and Debian's mosquitto are stopped and started again
 * on the same port; the driver reports the link down and up, re-subscribes, asks every device for its
 * state (resync), and commands work again. A hub restart republishes Hearth's retained state and does
 * not replay a command someone left retained (ghost switching).
 */
import { once } from 'node:events';
import mqtt from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { pluginsDir } from '../../core/cli/boot.ts';
import { discoverPlugins } from '../../core/plugin/discover.ts';
import type { PluginDefinition } from '../../core/plugin/types.ts';
import { startTasmotaBulb, type TasmotaBulb } from '../../scripts/simulators/tasmota-bulb.ts';
import { startZigbee2mqtt, type Zigbee2mqttSim } from '../../scripts/simulators/zigbee2mqtt.ts';
import { startTestHub } from '../helpers/hub.ts';
import {
  freePort,
  type RestartableBroker,
  retainedUnder,
  startAedes,
  startMosquitto,
  within,
} from './fixtures.ts';
import { eventually, startMqttHub } from './hub.ts';
import { type DriverRig, startDriver } from './sink.ts';

for (const [name, start] of [
  ['aedes', startAedes],
  ['mosquitto', startMosquitto],
] as const) {
  describe(`driver across a ${name} restart`, () => {
    let broker: RestartableBroker;
    let rig: DriverRig | null = null;
    let bulb: TasmotaBulb | null = null;
    let z2m: Zigbee2mqttSim | null = null;
    afterEach(async () => {
      await rig?.stop();
      await bulb?.stop().catch(() => {});
      await z2m?.stop().catch(() => {});
      rig = bulb = z2m = null;
      await broker.stop();
    });

    it('reconnects, resyncs every device and takes commands again', async () => {
      broker = await start();
      bulb = await startTasmotaBulb({ url: broker.url, topic: 'attic' });
      z2m = await startZigbee2mqtt({ url: broker.url, devices: [{ name: 'porch', type: 'bulb' }] });
      rig = await startDriver(broker.url, {
        devices: [{ protocolid: 'tasmota:attic' }, { protocolid: 'zigbee2mqtt:porch' }],
      });
      const queries = () => bulb!.received.filter((r) => r.topic === 'cmnd/attic/STATE').length;
      const gets = () => z2m!.received.filter((r) => r.topic === 'zigbee2mqtt/porch/get').length;
      // The start-up queries travel through the broker: count them once they have arrived, so a slow
      // delivery cannot be mistaken for the resync below.
      await eventually(() => (queries() > 0 && gets() > 0) || undefined, 'the start-up queries');
      const queriesBefore = queries();
      const getsBefore = gets();
      expect([queriesBefore, getsBefore]).toEqual([1, 1]);

      const from = rig.sink.reports.length;
      await broker.stop();
      await within(
        rig.sink.waitFor((r) => r.kind === 'connection' && !r.status.connected, from),
        'link down',
      );
      await expect(rig.driver.setState('tasmota:attic', { on: true, bri: 255 })).rejects.toThrow(
        /not connected/,
      );
      await broker.start();
      await within(
        rig.sink.waitFor((r) => r.kind === 'connection' && r.status.connected, from),
        'link up',
      );
      // The devices reconnect on their own schedule; each gets asked once the driver is back.
      await eventually(() => queries() > queriesBefore || undefined, 'Tasmota resync');
      await eventually(() => gets() > getsBefore || undefined, 'z2m resync');

      // Commands work again: each device ends up reporting the commanded level.
      const at = rig.sink.reports.length;
      const reached = (pid: string, bri: number) =>
        rig!.sink.waitFor((r) => r.kind === 'state' && r.protocolid === pid && r.level.bri === bri, at);
      await rig.driver.setState('zigbee2mqtt:porch', { on: true, bri: 200 });
      await rig.driver.setState('tasmota:attic', { on: true, bri: 255 });
      await within(reached('zigbee2mqtt:porch', 200), 'porch at 200');
      await within(reached('tasmota:attic', 255), 'attic at 255');
      expect(z2m.bulb('porch')).toEqual({ state: 'ON', brightness: 199 });
      expect(bulb.dimmer).toBe(100);
    });
  });
}

describe('hub restart', () => {
  it('the embedded broker comes back on its port: devices reconnect, are resynced and take commands', async () => {
    const port = await freePort();
    const h = await startMqttHub({ mqtt: { port } });
    const bulb = await startTasmotaBulb({
      url: h.t.mqttUrl,
      topic: 'hob',
      username: 'hob',
      password: await h.credential('hob'),
    });
    let next: Awaited<ReturnType<typeof h.t.restart>> | null = null;
    try {
      const light = (
        await h.site('POST', '/light', {
          name: 'Hob',
          type: 'dimmable',
          vendor: 'mqtt',
          mqttid: 'tasmota:hob',
        })
      ).body;
      expect((await h.site('PUT', '/light/state', { _id: light._id, on: true, bri: 255 })).status).toBe(200);
      // The command itself, not the level: the simulated bulb starts at Dimmer 100 already.
      await eventually(
        () => bulb.received.some((r) => r.topic === 'cmnd/hob/Dimmer' && r.payload === '100') || undefined,
        'the bulb on',
      );
      // The resync to wait for is the one after the bulb is back on the new hub's broker, not a query the
      // old hub sent before it stopped.
      let before = -1;
      bulb.client.once('connect', () => {
        before = bulb.received.length;
      });
      next = await h.t.restart(); // the embedded broker and every connection go down with the hub
      await eventually(() => before >= 0 || undefined, 'the bulb back on the broker');
      await eventually(
        () => bulb.received.slice(before).some((r) => r.topic === 'cmnd/hob/STATE') || undefined,
        'the resync of the reconnected bulb',
      );
      const res = await fetch(`${next.url}/api/site/${h.sitekey}/light/state`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ _id: light._id, on: true, bri: 128 }),
      });
      expect(res.status).toBe(200);
      await eventually(() => bulb.dimmer === 50 || undefined, 'the command after the restart');
    } finally {
      await bulb.stop();
      await (next ?? h.t).stop();
    }
  }, 30_000);

  it('regression: a device that connects while the hub starts is answered once its plugin is up, not refused', async () => {
    const port = await freePort();
    const first = await startMqttHub({ mqtt: { port } });
    const password = await first.credential('early');
    await first.t.stop({ keepData: true });
    // A plugin that starts first and holds the start-up open: the broker listens, mqtt-devices (which knows
    // the device's credentials) has not started yet.
    let release = () => {};
    let holding = () => {};
    const held = new Promise<void>((resolve) => {
      holding = resolve;
    });
    const slow: PluginDefinition = {
      name: 'slow-start',
      version: '0.0.0',
      description: 'holds the start-up',
      configSchema: { type: 'object', properties: {} },
      async start() {
        holding();
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return { stop() {} };
      },
    };
    const all = await discoverPlugins(pluginsDir);
    const starting = startTestHub({
      dataDir: first.t.dataDir,
      extraPlugins: [slow, ...all.filter((p) => p.name === 'lighting' || p.name === 'mqtt-devices')],
      config: { mqtt: { port } },
    });
    await held;
    const device = mqtt.connect(`mqtt://127.0.0.1:${port}`, {
      username: 'early',
      password,
      reconnectPeriod: 0,
    });
    const answer = new Promise<string>((resolve) => {
      device.once('connect', () => resolve('accepted'));
      device.once('error', (err) => resolve(`refused: ${err.message}`));
    });
    // The CONNECT reached the broker (its TCP connection is open) before the plugins are released.
    await within(once(device.stream, 'connect'), 'the TCP connection');
    release();
    const t = await starting;
    try {
      expect(await within(answer, 'the CONNACK')).toBe('accepted');
    } finally {
      await device.endAsync();
      await t.stop();
    }
  });

  it('republishes the retained hearth state the embedded broker lost', async () => {
    const h = await startMqttHub();
    const bulb = await startTasmotaBulb({
      url: h.t.mqttUrl,
      topic: 'den',
      username: 'den',
      password: await h.credential('den'),
    });
    const light = (
      await h.site('POST', '/light', { name: 'Den', type: 'dimmable', vendor: 'mqtt', mqttid: 'tasmota:den' })
    ).body;
    const ctl = await mqtt.connectAsync(h.t.mqttUrl, { username: 'ctl', password: h.sitekey });
    await ctl.publishAsync(
      `hearth/${h.siteid}/light/${light._id}/set`,
      JSON.stringify({ on: true, bri: 102 }),
    );
    await ctl.endAsync();
    await eventually(async () => {
      const d = ((await h.t.admin('GET', '/admin/mqtt/devices')).body as Array<{ bri?: number }>)[0];
      return d?.bri === 102 || undefined;
    }, 'the level in the registry');
    await bulb.stop();
    const next = await h.t.restart();
    try {
      const c = await mqtt.connectAsync(next.mqttUrl, { username: 'x', password: h.sitekey });
      const got: string[] = [];
      c.on('message', (_t, p) => got.push(p.toString()));
      await c.subscribeAsync(`hearth/${h.siteid}/light/${light._id}/state`);
      const payload = await eventually(() => got[0], 'the republished state');
      await c.endAsync();
      expect(JSON.parse(payload)).toMatchObject({ on: true, bri: 102 });
    } finally {
      await next.stop();
    }
  });
});

describe('ghost switching (docs/mqtt-devices.md#tasmota-and-shelly)', () => {
  it('a command left retained on hearth/<site>/light/<id>/set is not replayed into the light at start', async () => {
    // The core on an external mosquitto: unlike the embedded broker, it keeps retained messages across a
    // hub restart, so Hearth's subscription gets them replayed.
    const broker = await startMosquitto();
    const h = await startMqttHub({ mqtt: { external: { url: broker.url } } });
    const bulb = await startTasmotaBulb({ url: broker.url, topic: 'ghost' });
    const tool = await mqtt.connectAsync(broker.url);
    let next: Awaited<ReturnType<typeof h.t.restart>> | null = null;
    try {
      const light = (
        await h.site('POST', '/light', {
          name: 'Ghost',
          type: 'dimmable',
          vendor: 'mqtt',
          mqttid: 'tasmota:ghost',
        })
      ).body;
      const set = `hearth/${h.siteid}/light/${light._id}/set`;
      // A tool that publishes its commands retained (Tasmota's PowerRetain habit): live, it is a command.
      await tool.publishAsync(set, '{"on":true,"bri":255}', { retain: true });
      await eventually(() => bulb.power || undefined, 'the live command');
      await tool.publishAsync(set, '{"on":false}');
      await eventually(() => !bulb.power || undefined, 'off again');
      const before = bulb.received.length;
      next = await h.t.restart();
      // The broker replays the retained command when the hub subscribes, ahead of any live message on that
      // subscription. So a live command sent now (again until it arrives: the hub may not have subscribed
      // yet) is the first command the bulb gets from the restarted hub, unless the replay got through first.
      await eventually(async () => {
        if (bulb.dimmer === 50) return true;
        await tool.publishAsync(set, '{"on":true,"bri":128}');
        return undefined;
      }, 'the live command after the restart');
      const commands = bulb.received.slice(before).filter((r) => r.topic !== 'cmnd/ghost/STATE');
      expect(commands[0]).toMatchObject({ topic: 'cmnd/ghost/Dimmer', payload: '50' });
      expect(commands.filter((c) => c.payload !== '50')).toEqual([]);
    } finally {
      await tool.endAsync();
      await bulb.stop();
      await (next ?? h.t).stop();
      await broker.stop();
    }
  }, 30_000);
});

describe('the hub on an external broker (core mqtt.external)', () => {
  it('after the broker restarts, resyncs the devices and republishes the retained hearth topics', async () => {
    const broker = await startMosquitto();
    const h = await startMqttHub({ mqtt: { external: { url: broker.url } } });
    const bulb = await startTasmotaBulb({ url: broker.url, topic: 'cellar' });
    try {
      await h.t.admin('POST', '/admin/mqtt/devices', { mqttid: 'tasmota:cellar', site: h.siteid });
      const light = (
        await h.site('POST', '/light', {
          name: 'Cellar',
          type: 'dimmable',
          vendor: 'mqtt',
          mqttid: 'tasmota:cellar',
        })
      ).body;
      await eventually(
        () => bulb.received.some((r) => r.topic === 'cmnd/cellar/STATE') || undefined,
        'the first resync',
      );
      const queries = () => bulb.received.filter((r) => r.topic === 'cmnd/cellar/STATE').length;
      const before = queries();
      await broker.stop(); // no persistence: every retained message is gone
      await broker.start();
      await eventually(() => queries() > before || undefined, 'the resync after the restart');
      const status = `hearth/${h.siteid}/status`;
      const state = `hearth/${h.siteid}/light/${light._id}/state`;
      const got = await eventually(async () => {
        const r = await retainedUnder(broker.url, `hearth/${h.siteid}/#`, `hearth/${h.siteid}/sentinel`);
        return r.includes(status) && r.includes(state) ? r : undefined;
      }, 'the republished retained topics');
      expect(got).toEqual(expect.arrayContaining([status, state]));
    } finally {
      await bulb.stop();
      await h.stop();
      await broker.stop();
    }
  }, 30_000);
});
