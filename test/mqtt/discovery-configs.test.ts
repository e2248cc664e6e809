/**
 * Discovery configs read as devices, without a broker: Home Assistant switches (plain payloads) and the
 * configs zigbee2mqtt publishes for its own devices, Tasmota's own discovery and its withdrawal.
 */
import { describe, expect, it } from 'vitest';
import { HaDiscovery } from '../../drivers/mqtt/discovery/home-assistant.ts';
import { parseTasmotaConfig } from '../../drivers/mqtt/discovery/tasmota.ts';
import { parseDevice } from '../../drivers/mqtt/options.ts';
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
      },
    });
    expect(parseTasmotaConfig(topic, Buffer.alloc(0), known)).toEqual({ remove: 'tasmota:plug1' });
    expect(parseTasmotaConfig(topic, Buffer.alloc(0), known)).toBeNull();
  });
});
