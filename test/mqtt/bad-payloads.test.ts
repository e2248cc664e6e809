/**
 * Bad payloads from devices (docs/lighting.md#desired-and-reported-state): non-JSON, wrong types, unknown values and huge messages on
 * device and discovery topics are logged and dropped; the device's known state is untouched and the other
 * devices keep working.
 */
import mqtt from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { parseBridgeDevices } from '../../drivers/mqtt/discovery/zigbee2mqtt.ts';
import { startTasmotaBulb } from '../../scripts/simulators/tasmota-bulb.ts';
import { startZigbee2mqtt } from '../../scripts/simulators/zigbee2mqtt.ts';
import { type RestartableBroker, startAedes, within } from './fixtures.ts';
import { eventually } from './hub.ts';
import { type DriverRig, startDriver, stateAfter } from './sink.ts';

describe('bad device payloads', () => {
  let broker: RestartableBroker;
  let rig: DriverRig | null = null;
  const stops: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await rig?.stop();
    rig = null;
    for (const s of stops.splice(0)) await s();
    await broker.stop();
  });

  it('are dropped with a log line and do not affect the other devices', async () => {
    broker = await startAedes();
    const z2m = await startZigbee2mqtt({ url: broker.url, devices: [{ name: 'good', type: 'bulb' }] });
    const tas = await startTasmotaBulb({ url: broker.url, topic: 'ok' });
    stops.push(
      () => z2m.stop(),
      () => tas.stop(),
    );
    rig = await startDriver(broker.url, {
      devices: [
        { protocolid: 'zigbee2mqtt:good' },
        { protocolid: 'zigbee2mqtt:noisy' },
        { protocolid: 'tasmota:ok' },
      ],
      discovery: { homeAssistant: true, zigbee2mqtt: true, tasmota: true },
    });
    const evil = await mqtt.connectAsync(broker.url);
    stops.push(() => evil.endAsync());
    const from = rig.sink.reports.length;
    const garbage: Array<[string, string | Buffer]> = [
      ['zigbee2mqtt/noisy', 'not json at all'],
      ['zigbee2mqtt/noisy', '[1,2,3]'],
      ['zigbee2mqtt/noisy', '{"state":5,"brightness":"max"}'],
      ['zigbee2mqtt/noisy', '{"state":"MAYBE"}'],
      ['zigbee2mqtt/noisy', '{"brightness":1e400}'],
      ['zigbee2mqtt/noisy', Buffer.alloc(200_000, 0x7b)],
      ['zigbee2mqtt/noisy/availability', '{"state":42}'],
      ['stat/ok/RESULT', '{"POWER":"ON","Dimmer":"full"}'],
      ['stat/ok/RESULT', '{"Button1":{"Action":7}}'],
      ['tele/ok/LWT', 'Sleeping'],
      ['zigbee2mqtt/bridge/devices', '{"not":"a list"}'],
      ['zigbee2mqtt/bridge/state', 'upside down'],
      ['homeassistant/light/x/y/config', '{"schema":"template","command_topic":"a"}'],
      ['homeassistant/light/x/z/config', '{"schema":"json","cmd_t":"a","bri_scl":77}'],
      ['homeassistant/device_automation/x/t/config', '{"atype":"trigger"}'],
      ['homeassistant/light/x/w/config', '{{{'],
      // A wildcard announced as a topic would subscribe the driver to every device's messages.
      ['homeassistant/light/x/v/config', '{"schema":"json","cmd_t":"a/set","stat_t":"#"}'],
      ['homeassistant/light/x/s/config', '{"schema":"json","cmd_t":"a/+/set"}'],
      ['homeassistant/device_automation/x/u/config', '{"atype":"trigger","t":"btn/+","pl":"x"}'],
      ['homeassistant/switch/x/r/config', '{"cmd_t":"r/set","val_tpl":"{{ value_json.s }}"}'],
      ['homeassistant/switch/x/q/config', '{"stat_t":"q/state"}'],
      ['tasmota/discovery/A1B2C3D4E5F6/config', '{"t":"x","ft":"%topic%/%prefix%/","rl":[2]}'],
      ['tasmota/discovery/A1B2C3D4E5F7/config', '{"t":"a/#","rl":[1]}'],
    ];
    for (const [topic, payload] of garbage) await evil.publishAsync(topic, payload);

    // The good devices still work, and their answers are what arrives first.
    await rig.driver.setState('zigbee2mqtt:good', { on: true, bri: 77 });
    expect(await within(stateAfter(rig.sink, 'zigbee2mqtt:good', from), 'good bulb')).toEqual({
      on: true,
      bri: 77,
    });
    await rig.driver.setState('tasmota:ok', { on: true, bri: 255 });
    await within(
      rig.sink.waitFor((r) => r.kind === 'state' && r.protocolid === 'tasmota:ok' && r.level.on, from),
      'tasmota',
    );

    const isDrop = (l: Record<string, unknown>) =>
      /dropped a bad (device payload|discovery message)/.test(String(l.msg));
    const dropped = await eventually(() => {
      const d = rig!.logs.filter(isDrop);
      return d.length >= garbage.length ? d : undefined;
    }, 'a log line per bad message');
    expect(dropped.length).toBe(garbage.length);
    expect(dropped.every((l) => l.level === 40 && typeof l.reason === 'string')).toBe(true);
    // Nothing the garbage said became a state, an event or a device.
    const later = rig.sink.reports.slice(from);
    expect(later.some((r) => r.kind === 'state' && r.protocolid === 'zigbee2mqtt:noisy')).toBe(false);
    expect(later.some((r) => r.kind === 'sensor')).toBe(false);
    const ids = (await rig.driver.listDevices()).map((d) => d.protocolid).sort();
    expect(ids).toEqual(['tasmota:ok', 'zigbee2mqtt:good', 'zigbee2mqtt:noisy']);
    // Payloads never reach the log.
    expect(JSON.stringify(rig.logs)).not.toContain('not json at all');
  });
});

describe('zigbee2mqtt bridge/devices', () => {
  it('skips a device whose friendly name is no topic name (a wildcard or empty)', () => {
    const bulb = (friendly_name: string) => ({
      friendly_name,
      type: 'Router',
      definition: { exposes: [{ type: 'light', features: [{ name: 'brightness' }] }] },
    });
    const list = [bulb('ok'), bulb('a/#'), bulb('+'), bulb('')];
    const found = parseBridgeDevices(Buffer.from(JSON.stringify(list)), 'zigbee2mqtt');
    expect(found.map((d) => d.address)).toEqual(['zigbee2mqtt/ok']);
  });
});
