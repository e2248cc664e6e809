/**
 * Each profile on the wire: the driver against a real broker and a simulated device (real mqtt.js
 * clients), plus the brightness edges of each profile's scaling (bri 1 must not become off; 255 full).
 */
import mqtt from 'mqtt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deviceFromProtocolId } from '../../drivers/mqtt/device.ts';
import { haJson } from '../../drivers/mqtt/profiles/ha-json.ts';
import { profiles } from '../../drivers/mqtt/profiles/index.ts';
import { startHaDefaultLight } from '../../scripts/simulators/ha-default-light.ts';
import { startHaJsonBulb } from '../../scripts/simulators/ha-json-bulb.ts';
import { startHaSwitch } from '../../scripts/simulators/ha-switch.ts';
import { startShellyDimmer } from '../../scripts/simulators/shelly-dimmer.ts';
import { startShellyRelay } from '../../scripts/simulators/shelly-relay.ts';
import { startTasmotaBulb } from '../../scripts/simulators/tasmota-bulb.ts';
import { startZigbee2mqtt } from '../../scripts/simulators/zigbee2mqtt.ts';
import { type RestartableBroker, retainedUnder, startAedes, within } from './fixtures.ts';
import { type DriverRig, startDriver, stateAfter } from './sink.ts';

/** `p`'s value if it settles before the event loop gets to I/O (setImmediate); else 'still waiting'. */
const beforeAnyIo = <T>(p: Promise<T> | undefined) =>
  Promise.race([p, new Promise<string>((resolve) => setImmediate(() => resolve('still waiting')))]);

const dev = (pid: string) => deviceFromProtocolId(pid, { zigbee2mqttBase: 'zigbee2mqtt' })!;
const wire = (pid: string, bri: number) =>
  profiles[dev(pid).profile].command(dev(pid), { on: bri > 0, bri }).map((m) => m.payload);
const report = (pid: string, topic: string, payload: string) =>
  profiles[dev(pid).profile].parse(dev(pid), topic, Buffer.from(payload));

describe('brightness scaling at the edges', () => {
  it('zigbee2mqtt 0..254: bri 1 stays on at 1, 255 is 254, 254 reads back as full', () => {
    expect(wire('zigbee2mqtt:b', 1)).toEqual(['{"state":"ON","brightness":1}']);
    expect(wire('zigbee2mqtt:b', 255)).toEqual(['{"state":"ON","brightness":254}']);
    expect(wire('zigbee2mqtt:b', 0)).toEqual(['{"state":"OFF"}']);
    expect(report('zigbee2mqtt:b', 'zigbee2mqtt/b', '{"state":"ON","brightness":254}')).toEqual([
      { type: 'state', on: true, bri: 255 },
    ]);
    expect(report('zigbee2mqtt:b', 'zigbee2mqtt/b', '{"state":"ON","brightness":1}')).toEqual([
      { type: 'state', on: true, bri: 1 },
    ]);
  });

  it('Tasmota Dimmer 0..100: bri 1 is Dimmer 1 (not off), 255 is 100, Dimmer 100 reads back as 255', () => {
    expect(wire('tasmota:t', 1)).toEqual(['1']);
    expect(wire('tasmota:t', 255)).toEqual(['100']);
    expect(wire('tasmota:t', 0)).toEqual(['OFF']);
    expect(report('tasmota:t', 'stat/t/RESULT', '{"POWER":"ON","Dimmer":100}')).toEqual([
      { type: 'state', on: true, bri: 255 },
    ]);
  });

  it('Shelly 0..100: bri 1 is brightness 1, 255 is 100; a relay is on/off', () => {
    expect(wire('shelly1:d:light:0', 1)).toEqual(['{"turn":"on","brightness":1}']);
    expect(wire('shelly1:d:light:0', 255)).toEqual(['{"turn":"on","brightness":100}']);
    expect(wire('shelly1:r', 1)).toEqual(['on']);
    const gen2 = JSON.parse(wire('shelly2:p:light:0', 1)[0]!);
    expect(gen2).toMatchObject({ method: 'Light.Set', params: { id: 0, on: true, brightness: 1 } });
  });

  it('Home Assistant JSON follows brightness_scale (100 and 255)', () => {
    const d = { ...dev('zigbee2mqtt:x'), profile: 'ha-json' as const, protocolid: 'ha:x' };
    const ha = (scale: number) => ({
      ...d,
      ha: {
        commandTopic: 'x/set',
        stateTopic: 'x/state',
        payloadAvailable: 'online',
        payloadNotAvailable: 'offline',
        brightnessScale: scale,
        triggers: [],
      },
    });
    expect(haJson.command(ha(100), { on: true, bri: 1 })[0]!.payload).toBe('{"state":"ON","brightness":1}');
    expect(haJson.command(ha(100), { on: true, bri: 255 })[0]!.payload).toBe(
      '{"state":"ON","brightness":100}',
    );
    expect(haJson.command(ha(255), { on: true, bri: 1 })[0]!.payload).toBe('{"state":"ON","brightness":1}');
    expect(haJson.parse(ha(100), 'x/state', Buffer.from('{"state":"ON","brightness":100}'))).toEqual([
      { type: 'state', on: true, bri: 255 },
    ]);
    // brightness_scale 254 (zigbee2mqtt's own HA discovery): 1 stays 1, 255 is 254, 254 reads as full.
    expect(haJson.command(ha(254), { on: true, bri: 1 })[0]!.payload).toBe('{"state":"ON","brightness":1}');
    expect(haJson.command(ha(254), { on: true, bri: 255 })[0]!.payload).toBe(
      '{"state":"ON","brightness":254}',
    );
    expect(haJson.parse(ha(254), 'x/state', Buffer.from('{"state":"ON","brightness":254}'))).toEqual([
      { type: 'state', on: true, bri: 255 },
    ]);
  });

  it('Shelly Gen2 light: 255 is brightness 100; off carries no brightness', () => {
    const params = (bri: number) => JSON.parse(wire('shelly2:p:light:0', bri)[0]!).params;
    expect(params(255)).toEqual({ id: 0, on: true, brightness: 100 });
    expect(params(0)).toEqual({ id: 0, on: false });
  });
});

describe('presence and buttons in each profile', () => {
  it('availability comes from the last will / availability topic of each profile', () => {
    const up = [{ type: 'availability', online: true }];
    const down = [{ type: 'availability', online: false }];
    expect(report('zigbee2mqtt:b', 'zigbee2mqtt/b/availability', '{"state":"online"}')).toEqual(up);
    expect(report('zigbee2mqtt:b', 'zigbee2mqtt/b/availability', 'offline')).toEqual(down);
    expect(report('tasmota:t', 'tele/t/LWT', 'Online')).toEqual(up);
    expect(report('tasmota:t', 'tele/t/LWT', 'Offline')).toEqual(down);
    expect(report('shelly1:r', 'shellies/r/online', 'false')).toEqual(down);
    expect(report('shelly2:p', 'p/online', 'true')).toEqual(up);
  });

  it('a Shelly Gen1 relay reports on/off on shellies/<id>/relay/<n>', () => {
    expect(report('shelly1:r', 'shellies/r/relay/0', 'on')).toEqual([{ type: 'state', on: true }]);
    expect(report('shelly1:r:relay:1', 'shellies/r/relay/1', 'off')).toEqual([{ type: 'state', on: false }]);
    expect(profiles.shelly1.command(dev('shelly1:r:relay:1'), { on: false, bri: 0 })).toEqual([
      { topic: 'shellies/r/relay/1/command', payload: 'off' },
    ]);
  });

  it('Tasmota detached buttons and switches (SetOption73/114) are events, not states', () => {
    expect(report('tasmota:t', 'stat/t/RESULT', '{"Switch1":{"Action":"TOGGLE"}}')).toEqual([
      { type: 'event', event: 'switch1-toggle' },
    ]);
    expect(report('tasmota:t', 'stat/t/RESULT', '{"Button2":{"Action":"DOUBLE"}}')).toEqual([
      { type: 'event', event: 'button2-double' },
    ]);
  });
});

describe('profiles on the wire', () => {
  let broker: RestartableBroker;
  let rig: DriverRig | null = null;
  const devices: Array<{ stop(): Promise<void> }> = [];
  beforeEach(async () => {
    broker = await startAedes();
  });
  afterEach(async () => {
    await rig?.stop();
    rig = null;
    for (const d of devices.splice(0)) await d.stop();
    await broker.stop();
  });

  it('never retains a command, read or pairing request, whatever the profile', async () => {
    const ha = {
      protocolid: 'ha:lamp',
      profile: 'ha-json',
      address: 'lamp',
      kind: 'dimmable',
      ha: { commandTopic: 'esphome/lamp/set', stateTopic: 'esphome/lamp/state' },
    };
    const ids = [
      'zigbee2mqtt:bulb',
      'tasmota:desk',
      'shelly1:relay1',
      'shelly1:dim1:light:0',
      'shelly2:plus1',
      'shelly2:dim2:light:0',
    ];
    rig = await startDriver(broker.url, {
      devices: [...ids.map((protocolid) => ({ protocolid })), ha],
      discovery: { zigbee2mqtt: true },
    });
    for (const id of [...ids, 'ha:lamp']) {
      await rig.driver.setState(id, { on: true, bri: 1 });
      await rig.driver.setState(id, { on: false, bri: 0 });
    }
    await rig.driver.readState?.('tasmota:desk');
    await rig.driver.discover({ durationMs: 1 });
    expect(await retainedUnder(broker.url, '#', 'test/sentinel')).toEqual([]);
  });

  it('zigbee2mqtt: set and get on the bulb, reports from its state topic, actions from the switch', async () => {
    const z2m = await startZigbee2mqtt({
      url: broker.url,
      devices: [
        { name: 'bulb', type: 'bulb' },
        { name: 'remote', type: 'switch' },
      ],
    });
    devices.push(z2m);
    rig = await startDriver(broker.url, {
      devices: [{ protocolid: 'zigbee2mqtt:bulb' }, { protocolid: 'zigbee2mqtt:remote', kind: 'sensor' }],
    });
    const from = rig.sink.reports.length;
    await rig.driver.setState('zigbee2mqtt:bulb', { on: true, bri: 100 });
    expect(await within(stateAfter(rig.sink, 'zigbee2mqtt:bulb', from), 'z2m report')).toEqual({
      on: true,
      bri: 100,
    });
    expect(z2m.bulb('bulb')).toEqual({ state: 'ON', brightness: 100 });
    const set = z2m.received.find((r) => r.topic === 'zigbee2mqtt/bulb/set')!;
    expect(JSON.parse(set.payload)).toEqual({ state: 'ON', brightness: 100 });
    expect(z2m.received.some((r) => r.topic === 'zigbee2mqtt/bulb/get')).toBe(true); // resync at start
    const at = rig.sink.reports.length;
    await z2m.press('remote', 'brightness_move_up');
    await within(
      rig.sink.waitFor((r) => r.kind === 'sensor', at),
      'action',
    );
    // The empty `action` zigbee2mqtt publishes after each press is not an event.
    await z2m.press('remote', 'off');
    await within(
      rig.sink.waitFor((r) => r.kind === 'sensor' && r.event === 'off', at),
      'second action',
    );
    expect(rig.sink.reports.slice(at).filter((r) => r.kind === 'sensor')).toEqual([
      { kind: 'sensor', protocolid: 'zigbee2mqtt:remote', event: 'brightness_move_up' },
      { kind: 'sensor', protocolid: 'zigbee2mqtt:remote', event: 'off' },
    ]);
  });

  it('Tasmota: Dimmer and POWER commands, RESULT reports, button actions', async () => {
    const bulb = await startTasmotaBulb({ url: broker.url, topic: 'kitchen' });
    devices.push(bulb);
    rig = await startDriver(broker.url, { devices: [{ protocolid: 'tasmota:kitchen' }] });
    let from = rig.sink.reports.length;
    await rig.driver.setState('tasmota:kitchen', { on: true, bri: 255 });
    expect(await within(stateAfter(rig.sink, 'tasmota:kitchen', from), 'on')).toEqual({ on: true, bri: 255 });
    expect(bulb.dimmer).toBe(100);
    from = rig.sink.reports.length;
    await rig.driver.setState('tasmota:kitchen', { on: false, bri: 0 });
    expect(await within(stateAfter(rig.sink, 'tasmota:kitchen', from), 'off')).toEqual({ on: false, bri: 0 });
    expect(bulb.power).toBe(false);
    expect(bulb.received.filter((r) => r.payload !== '').map((r) => `${r.topic} ${r.payload}`)).toEqual([
      'cmnd/kitchen/Dimmer 100',
      'cmnd/kitchen/POWER OFF',
    ]);
    // Reads ask the bulb (cmnd/<t>/STATE) and return its answer; once its last will fired, they answer
    // the last known level at once instead of waiting for a device that is gone.
    expect(await rig.driver.readState?.('tasmota:kitchen')).toEqual({ on: false, bri: 0 });
    from = rig.sink.reports.length;
    await bulb.press(2, 'HOLD');
    expect(
      await within(
        rig.sink.waitFor((r) => r.kind === 'sensor', from),
        'button',
      ),
    ).toMatchObject({ event: 'button2-hold' });
    from = rig.sink.reports.length;
    bulb.crash();
    await within(
      rig.sink.waitFor(
        (r) => r.kind === 'connection' && String(r.status.detail?.unavailable) === 'tasmota:kitchen',
        from,
      ),
      'the last will',
    );
    // Answered from what the driver knows, before any I/O could have happened: no query, no wait.
    expect(await beforeAnyIo(rig.driver.readState?.('tasmota:kitchen'))).toEqual({ on: false, bri: 0 });
  });

  it('Shelly Gen2 relay: Switch.Set over RPC, NotifyStatus reports, input events; dimmed means on', async () => {
    const relay = await startShellyRelay({ url: broker.url, prefix: 'shellyplus1-a1' });
    devices.push(relay);
    const pid = 'shelly2:shellyplus1-a1:switch:0';
    rig = await startDriver(broker.url, { devices: [{ protocolid: pid }] });
    const from = rig.sink.reports.length;
    await rig.driver.setState(pid, { on: true, bri: 40 });
    expect(await within(stateAfter(rig.sink, pid, from), 'relay on')).toEqual({ on: true, bri: 255 });
    expect(relay.output).toBe(true);
    const at = rig.sink.reports.length;
    await relay.press('long_push');
    expect(
      await within(
        rig.sink.waitFor((r) => r.kind === 'sensor', at),
        'input',
      ),
    ).toMatchObject({
      protocolid: pid,
      event: 'input0-long_push',
    });
  });

  it('Shelly Gen1 dimmer: light/0/set JSON, status reports, `update` asked at start', async () => {
    const dimmer = await startShellyDimmer({ url: broker.url, id: 'dim1' });
    devices.push(dimmer);
    rig = await startDriver(broker.url, { devices: [{ protocolid: 'shelly1:dim1:light:0' }] });
    expect(dimmer.received.some((r) => r.topic === 'shellies/dim1/command' && r.payload === 'update')).toBe(
      true,
    );
    const from = rig.sink.reports.length;
    await rig.driver.setState('shelly1:dim1:light:0', { on: true, bri: 1 });
    expect(await within(stateAfter(rig.sink, 'shelly1:dim1:light:0', from), 'dimmer')).toEqual({
      on: true,
      bri: 3,
    });
    expect(dimmer).toMatchObject({ ison: true, brightness: 1 });
  });

  it('Home Assistant JSON: a discovered light is commanded on its command topic with its scale', async () => {
    const bulb = await startHaJsonBulb({ url: broker.url, node: 'lamp1', scale: 100 });
    devices.push(bulb);
    rig = await startDriver(broker.url, { discovery: { homeAssistant: true } });
    await within(
      rig.sink.waitFor((r) => r.kind === 'devices'),
      'discovery',
    );
    // Its retained state arrives once the driver subscribes to the announced state topic.
    expect(await within(stateAfter(rig.sink, 'ha:lamp1-light', 0), 'retained state')).toEqual({
      on: false,
      bri: 0,
    });
    const from = rig.sink.reports.length;
    await rig.driver.setState('ha:lamp1-light', { on: true, bri: 128 });
    expect(await within(stateAfter(rig.sink, 'ha:lamp1-light', from), 'ha report')).toEqual({
      on: true,
      bri: 128,
    });
    expect(bulb.state).toEqual({ state: 'ON', brightness: 50 });
    // No read command in this profile: a read answers the last report at once instead of waiting.
    expect(await beforeAnyIo(rig.driver.readState?.('ha:lamp1-light'))).toEqual({ on: true, bri: 128 });
    const at = rig.sink.reports.length;
    await bulb.press();
    expect(
      await within(
        rig.sink.waitFor((r) => r.kind === 'sensor', at),
        'trigger',
      ),
    ).toEqual({
      kind: 'sensor',
      protocolid: 'ha:esp-lamp1',
      event: 'short',
    });
  });

  it('Home Assistant switch: a discovered relay takes plain ON/OFF and reports its state', async () => {
    const relay = await startHaSwitch({ url: broker.url, node: 'porch' });
    devices.push(relay);
    rig = await startDriver(broker.url, { discovery: { homeAssistant: true } });
    const pid = 'ha:porch-relay';
    expect(await within(stateAfter(rig.sink, pid, 0), 'retained state')).toEqual({ on: false, bri: 0 });
    expect((await rig.driver.listDevices()).find((d) => d.protocolid === pid)).toMatchObject({
      kind: 'binary',
      name: 'Relay porch',
    });
    let from = rig.sink.reports.length;
    await rig.driver.setState(pid, { on: true, bri: 80 });
    expect(await within(stateAfter(rig.sink, pid, from), 'on')).toEqual({ on: true, bri: 255 });
    from = rig.sink.reports.length;
    await rig.driver.setState(pid, { on: false, bri: 0 });
    expect(await within(stateAfter(rig.sink, pid, from), 'off')).toEqual({ on: false, bri: 0 });
    expect(relay.received.map((r) => `${r.topic} ${r.payload}`)).toEqual([
      'esphome/porch/switch/relay/command ON',
      'esphome/porch/switch/relay/command OFF',
    ]);
  });

  it('Home Assistant default schema: brightness then ON, reports from both topics, a dial while off switches nothing', async () => {
    const dimmer = await startHaDefaultLight({ url: broker.url, node: 'hall', scale: 100 });
    devices.push(dimmer);
    rig = await startDriver(broker.url, { discovery: { homeAssistant: true } });
    const sink = rig.sink;
    const pid = 'ha:hall-dimmer';
    const states = (from: number) =>
      sink.reports
        .slice(from)
        .filter((r) => r.kind === 'state' && r.protocolid === pid)
        .map((r) => (r as { level: { on: boolean; bri: number } }).level);
    const reach = (on: boolean, bri: number, from: number) =>
      within(
        sink.waitFor((r) => {
          if (r.kind !== 'state' || r.protocolid !== pid) return false;
          const level = (r as { level: { on: boolean; bri: number } }).level;
          return level.on === on && level.bri === bri;
        }, from),
        `${on} ${bri}`,
      );
    await reach(false, 0, 0); // the retained state
    expect((await rig.driver.listDevices()).find((d) => d.protocolid === pid)).toMatchObject({
      kind: 'dimmable',
      name: 'Dimmer hall',
    });

    let from = sink.reports.length;
    await rig.driver.setState(pid, { on: true, bri: 128 });
    await reach(true, 128, from);
    expect(dimmer.state).toEqual({ on: true, brightness: 50 });
    expect(dimmer.received.map((r) => `${r.topic} ${r.payload}`)).toEqual([
      'diy/hall/brightness/set 50',
      'diy/hall/light/set ON',
    ]);

    // Turned at the device while on: the level follows.
    from = sink.reports.length;
    await dimmer.dial(20);
    await reach(true, 51, from);

    // Off; then dialled while off: still off (the next message on the line is the proof), and the light
    // comes back on at the dialled level when the device itself switches on.
    from = sink.reports.length;
    await rig.driver.setState(pid, { on: false, bri: 0 });
    await reach(false, 0, from);
    from = sink.reports.length;
    await dimmer.dial(80);
    const wall = mqtt.connect(broker.url);
    try {
      await wall.publishAsync('diy/hall/light/state', 'ON');
      await reach(true, 204, from);
    } finally {
      await wall.endAsync();
    }
    expect(states(from)).toEqual([{ on: true, bri: 204 }]);
  });
});
