/**
 * The `hearth mqtt ...` commands against the hub's real admin API (a credential made on the CLI lets a
 * real device in), pairing through the site API, and the plugin pointed at an external broker (Debian's
 * mosquitto) instead of the hub's own.
 */
import mqtt from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { runCommand } from '../../core/cli/args.ts';
import type { CliIo } from '../../core/plugin/types.ts';
import { mqttCommands } from '../../plugins/mqtt-devices/commands.ts';
import { startTasmotaBulb } from '../../scripts/simulators/tasmota-bulb.ts';
import { startZigbee2mqtt } from '../../scripts/simulators/zigbee2mqtt.ts';
import { type RestartableBroker, retainedUnder, startMosquitto } from './fixtures.ts';
import { eventually, type Json, type MqttHub, startMqttHub } from './hub.ts';

let h: MqttHub;
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
  await h.stop();
});

async function cli(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    admin: { request: (m, p, b) => h.t.admin(m, p, b) },
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  };
  const line = args.join(' ');
  const cmd = [...mqttCommands]
    .sort((a, b) => b.name.length - a.name.length)
    .find((c) => line.startsWith(c.name));
  if (!cmd) throw new Error(`no command for ${line}`);
  return { code: await runCommand(cmd, args.slice(cmd.name.split(' ').length), io), out, err };
}

describe('hearth mqtt commands', () => {
  it('add, list and remove credentials; a CLI-made credential lets a device in', async () => {
    h = await startMqttHub();
    const added = await cli([
      'mqtt',
      'credentials',
      'add',
      'porch',
      '--site',
      'Home',
      '--topic',
      'shellies/porch/#',
      '--json',
    ]);
    expect(added.code).toBe(0);
    const c = JSON.parse(added.out[0]!) as Json;
    expect(c).toMatchObject({ username: 'porch', site: h.siteid, topics: ['shellies/porch/#'] });
    const client = await mqtt.connectAsync(h.t.mqttUrl, {
      username: 'porch',
      password: c.password,
      reconnectPeriod: 0,
    });
    await client.endAsync();

    const list = await cli(['mqtt', 'credentials', 'list']);
    expect(list.out).toEqual([`porch  site ${h.siteid}  shellies/porch/#`]);
    expect(list.out.join('\n')).not.toContain(c.password);
    expect(await cli(['mqtt', 'credentials', 'add', 'porch', '--site', 'Home'])).toMatchObject({
      code: 1,
      err: ['error: credential porch already exists (HTTP 409)'],
    });
    expect((await cli(['mqtt', 'credentials', 'add', 'x'])).code).toBe(2);
    expect(await cli(['mqtt', 'credentials', 'remove', 'porch'])).toMatchObject({
      code: 0,
      out: ['removed porch'],
    });
    expect(await cli(['mqtt', 'credentials', 'remove', 'porch'])).toMatchObject({ code: 1 });
  });

  it('lists devices with their marks, and pairing opens zigbee2mqtt permit_join', async () => {
    h = await startMqttHub({ mqtt: { allowAnonymous: true } });
    const z2m = await startZigbee2mqtt({ url: h.t.mqttUrl, devices: [{ name: 'lamp', type: 'bulb' }] });
    cleanup.push(() => z2m.stop());
    await eventually(
      async () => ((await cli(['mqtt', 'devices'])).out.length === 1 ? true : undefined),
      'a device',
    );
    expect((await cli(['mqtt', 'devices'])).out).toEqual([
      `zigbee2mqtt:lamp  dimmable  site ${h.siteid}  NEW`,
    ]);
    const paired = await h.site('POST', '/connection/discover', { _id: `mqtt-${h.siteid}`, duration: 1 });
    expect(paired.status).toBe(200);
    expect(z2m.permitJoins).toBe(1);
    const request = z2m.received.find((r) => r.topic === 'zigbee2mqtt/bridge/request/permit_join')!;
    expect(JSON.parse(request.payload)).toEqual({ value: true, time: 1 });
    expect(
      await retainedUnder(h.t.mqttUrl, 'zigbee2mqtt/bridge/request/#', 'zigbee2mqtt/bridge/request/x'),
    ).toEqual([]);
  });
});

describe('an external device broker', () => {
  let broker: RestartableBroker;
  afterEach(async () => {
    await broker.stop();
  });

  it('drives a bulb on mosquitto, follows its restart and resyncs', async () => {
    broker = await startMosquitto();
    h = await startMqttHub({ plugins: { 'mqtt-devices': { broker: { url: broker.url } } } });
    const bulb = await startTasmotaBulb({ url: broker.url, topic: 'shed' });
    cleanup.push(() => bulb.stop());
    const light = (
      await h.site('POST', '/light', {
        name: 'Shed',
        type: 'dimmable',
        vendor: 'mqtt',
        mqttid: 'tasmota:shed',
      })
    ).body;
    expect((await h.site('PUT', '/light/state', { _id: light._id, on: true, bri: 255 })).status).toBe(200);
    await eventually(() => bulb.power || undefined, 'the bulb on');
    const conn = async () =>
      ((await h.site('GET', '/connection')).body as Json[]).find((c) => c.vendor === 'mqtt');
    expect(await conn()).toMatchObject({ connected: true, detail: { broker: 'external' } });

    await broker.stop();
    await eventually(async () => ((await conn()).connected === false ? true : undefined), 'the link down');
    const refused = await h.site('PUT', '/light/state', { _id: light._id, on: false, bri: 0 });
    expect(refused.status).toBe(502);
    const queries = bulb.received.filter((r) => r.topic === 'cmnd/shed/STATE').length;
    await broker.start();
    await eventually(async () => ((await conn()).connected ? true : undefined), 'the link up');
    await eventually(
      () => bulb.received.filter((r) => r.topic === 'cmnd/shed/STATE').length > queries || undefined,
      'resync',
    );
    expect((await h.site('PUT', '/light/state', { _id: light._id, on: false, bri: 0 })).status).toBe(200);
    await eventually(() => !bulb.power || undefined, 'the bulb off');
  }, 20_000);
});

describe('an external broker over TLS with a user name', () => {
  it('verifies the broker against the CA file, authenticates, and refuses an unknown CA', async () => {
    const user = { username: 'hearth', password: 'hearth-secret-123' };
    const broker = await startMosquitto({ user });
    try {
      const bulb = await startTasmotaBulb({ url: broker.url, topic: 'vault', ...user, ca: broker.caFile! });
      cleanup.push(() => bulb.stop());
      h = await startMqttHub({
        plugins: { 'mqtt-devices': { broker: { url: broker.url, ...user, caFile: broker.caFile } } },
      });
      const light = (
        await h.site('POST', '/light', {
          name: 'Vault',
          type: 'dimmable',
          vendor: 'mqtt',
          mqttid: 'tasmota:vault',
        })
      ).body;
      expect((await h.site('PUT', '/light/state', { _id: light._id, on: true, bri: 128 })).status).toBe(200);
      await eventually(() => (bulb.power && bulb.dimmer === 50) || undefined, 'the bulb over TLS');
      expect(JSON.stringify(h.t.logs)).not.toContain(user.password);
      await h.stop();

      // Without the CA the certificate does not verify: the driver stays down, the hub runs.
      h = await startMqttHub({ plugins: { 'mqtt-devices': { broker: { url: broker.url, ...user } } } });
      const conn = ((await h.site('GET', '/connection')).body as Json[]).find((c) => c.vendor === 'mqtt');
      expect(conn.connected).toBe(false);
      expect((await h.site('PUT', '/light/state', { _id: 'nope', on: true, bri: 1 })).status).toBe(404);
    } finally {
      await broker.stop();
    }
  }, 30_000);
});
