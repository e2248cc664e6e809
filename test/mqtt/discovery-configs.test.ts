/**
 * Discovery configs read as devices, without a broker: Home Assistant switches (plain payloads) and the
 * configs zigbee2mqtt publishes for its own devices, Tasmota's own discovery and its withdrawal.
 */
import { describe, expect, it } from 'vitest';
import { HaDiscovery } from '../../drivers/mqtt/discovery/home-assistant.ts';
import { parseTasmotaConfig } from '../../drivers/mqtt/discovery/tasmota.ts';
import { parseDevice } from '../../drivers/mqtt/options.ts';
import { PayloadError } from '../../drivers/mqtt/payload.ts';
import { haJson } from '../../drivers/mqtt/profiles/ha-json.ts';

describe('Home Assistant discovery configs', () => {
  const config = (body: unknown) => Buffer.from(JSON.stringify(body));
  it('leaves the configs zigbee2mqtt publishes for its own devices to bridge/devices when that is read', () => {
    const topic = 'homeassistant/light/0x0017880104e45517/light/config';
    const z2mLight = config({
      schema: 'json',
      command_topic: 'zigbee2mqtt/hall/set',
      state_topic: 'zigbee2mqtt/hall',
      unique_id: '0x0017880104e45517_light_zigbee2mqtt',
      brightness: true,
      device: { identifiers: ['zigbee2mqtt_0x0017880104e45517'], name: 'hall' },
      origin: { name: 'Zigbee2MQTT' },
    });
    expect(new HaDiscovery('homeassistant', { skipZigbee2mqtt: true }).handle(topic, z2mLight)).toBeNull();
    // Without zigbee2mqtt discovery, Home Assistant's is the only way in.
    expect(new HaDiscovery('homeassistant').handle(topic, z2mLight)).toMatchObject({
      upsert: { protocolid: 'ha:0x0017880104e45517_light_zigbee2mqtt', kind: 'dimmable' },
    });
  });

  it('reads payload_on/state_on, and the device survives being remembered (stored, parsed at the next start)', () => {
    const ha = new HaDiscovery('homeassistant');
    const change = ha.handle(
      'homeassistant/switch/plug/config',
      config({ cmd_t: 'plug/set', stat_t: 'plug/state', pl_on: '1', pl_off: '0', stat_on: 'on' }),
    );
    const device = change && 'upsert' in change ? change.upsert : null;
    expect(device).toMatchObject({
      protocolid: 'ha:plug',
      kind: 'binary',
      ha: { plain: { payloadOn: '1', payloadOff: '0', stateOn: 'on', stateOff: '0' } },
    });
    const again = parseDevice(JSON.parse(JSON.stringify(device)), { zigbee2mqttBase: 'zigbee2mqtt' });
    expect(again).toEqual(device);
    expect(haJson.command(again, { on: true, bri: 3 })).toEqual([{ topic: 'plug/set', payload: '1' }]);
    expect(haJson.parse(again, 'plug/state', Buffer.from('0'))).toEqual([{ type: 'state', on: false }]);
  });
});

describe('Home Assistant default-schema lights', () => {
  const config = (body: unknown) => Buffer.from(JSON.stringify(body));
  const upsert = (ha: HaDiscovery, topic: string, body: unknown) => {
    const change = ha.handle(topic, config(body));
    if (!change || !('upsert' in change)) throw new Error('no device');
    return change.upsert;
  };
  const dimmer = {
    '~': 'diy/hall',
    uniq_id: 'hall-dimmer',
    cmd_t: '~/light/set',
    stat_t: '~/light/state',
    bri_cmd_t: '~/brightness/set',
    bri_stat_t: '~/brightness/state',
    bri_scl: 100,
  };

  it('a config without schema is a dimmer with plain payloads and its brightness on topics of its own', () => {
    const device = upsert(new HaDiscovery('homeassistant'), 'homeassistant/light/hall/light/config', dimmer);
    expect(device).toMatchObject({
      protocolid: 'ha:hall-dimmer',
      kind: 'dimmable',
      ha: {
        commandTopic: 'diy/hall/light/set',
        stateTopic: 'diy/hall/light/state',
        brightnessScale: 100,
        plain: { payloadOn: 'ON', payloadOff: 'OFF', stateOn: 'ON', stateOff: 'OFF' },
        brightness: {
          commandTopic: 'diy/hall/brightness/set',
          stateTopic: 'diy/hall/brightness/state',
          onCommand: 'last',
        },
      },
    });
    // Remembered by the plugin and read back at the next start: the same device.
    expect(parseDevice(JSON.parse(JSON.stringify(device)), { zigbee2mqttBase: 'zigbee2mqtt' })).toEqual(
      device,
    );
    expect(haJson.topics(device).sort()).toEqual(['diy/hall/brightness/state', 'diy/hall/light/state']);
    // on_command_type last (the default): the level first, then on; off is the off payload alone.
    expect(haJson.command(device, { on: true, bri: 255 })).toEqual([
      { topic: 'diy/hall/brightness/set', payload: '100' },
      { topic: 'diy/hall/light/set', payload: 'ON' },
    ]);
    expect(haJson.command(device, { on: false, bri: 0 })).toEqual([
      { topic: 'diy/hall/light/set', payload: 'OFF' },
    ]);
    // A brightness report does not switch the light; `None` (HA: state unknown) reports nothing.
    expect(haJson.parse(device, 'diy/hall/brightness/state', Buffer.from('100'))).toEqual([
      { type: 'state', bri: 255, dimOnly: true },
    ]);
    expect(haJson.parse(device, 'diy/hall/light/state', Buffer.from('None'))).toEqual([]);
    expect(() => haJson.parse(device, 'diy/hall/brightness/state', Buffer.from('bright'))).toThrow(
      PayloadError,
    );
    expect(() => haJson.parse(device, 'diy/hall/light/state', Buffer.from('maybe'))).toThrow(PayloadError);
  });

  it('follows on_command_type first and brightness, and payload_on/payload_off', () => {
    const ha = new HaDiscovery('homeassistant');
    const first = upsert(ha, 'homeassistant/light/a/config', {
      ...dimmer,
      uniq_id: 'a',
      on_cmd_type: 'first',
    });
    expect(haJson.command(first, { on: true, bri: 128 }).map((m) => `${m.topic} ${m.payload}`)).toEqual([
      'diy/hall/light/set ON',
      'diy/hall/brightness/set 50',
    ]);
    const only = upsert(ha, 'homeassistant/light/b/config', {
      ...dimmer,
      uniq_id: 'b',
      schema: 'default',
      on_command_type: 'brightness',
      pl_on: 'on',
      pl_off: 'off',
    });
    expect(haJson.command(only, { on: true, bri: 255 })).toEqual([
      { topic: 'diy/hall/brightness/set', payload: '100' },
    ]);
    expect(haJson.command(only, { on: false, bri: 0 })).toEqual([
      { topic: 'diy/hall/light/set', payload: 'off' },
    ]);
    // Without a brightness command topic it is an on/off light.
    const plain = upsert(ha, 'homeassistant/light/c/config', {
      cmd_t: 'c/set',
      stat_t: 'c/state',
      uniq_id: 'c',
    });
    expect(plain).toMatchObject({ kind: 'binary', ha: { plain: { payloadOn: 'ON' } } });
    expect(plain.ha?.brightness).toBeUndefined();
  });

  it('refuses what only Home Assistant could render: templates, the template schema, one topic for both', () => {
    const ha = new HaDiscovery('homeassistant');
    const refused = [
      { ...dimmer, stat_val_tpl: '{{ value_json.state }}' },
      { ...dimmer, bri_val_tpl: '{{ value_json.brightness }}' },
      { ...dimmer, schema: 'template', command_on_template: 'on' },
      { ...dimmer, bri_stat_t: '~/light/state' },
      { ...dimmer, on_cmd_type: 'sometimes' },
      { ...dimmer, bri_scl: 1000 },
    ];
    for (const body of refused)
      expect(() => ha.handle('homeassistant/light/x/config', config(body)), JSON.stringify(body)).toThrow(
        PayloadError,
      );
  });
});

describe('Tasmota discovery configs', () => {
  it('a relay board is a binary light; its empty (withdrawn) config names the device that went away', () => {
    const known = new Map<string, string>();
    const topic = 'tasmota/discovery/A1B2C3D4E5F6/config';
    const board = { t: 'plug1', fn: ['Plug'], rl: [1, 0], so: {}, btn: [0], swc: [-1] };
    expect(parseTasmotaConfig(topic, Buffer.from(JSON.stringify(board)), known)).toEqual({
      upsert: {
        protocolid: 'tasmota:plug1',
        profile: 'tasmota',
        kind: 'binary',
        address: 'plug1',
        name: 'Plug',
        plug: true,
      },
    });
    expect(parseTasmotaConfig(topic, Buffer.alloc(0), known)).toEqual({ remove: 'tasmota:plug1' });
    expect(parseTasmotaConfig(topic, Buffer.alloc(0), known)).toBeNull();
  });
});
