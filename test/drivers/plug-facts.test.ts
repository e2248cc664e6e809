/**
 * Each driver says a device is a plug where its protocol tells (DeviceInfo.plug): Hue's product archetype,
 * a Zigbee endpoint's device id, zigbee2mqtt's definition, Home Assistant's `outlet` switch class, a
 * Tasmota relay not announced as a light, a Shelly plug's model. A lamp never is one.
 */
import { describe, expect, it } from 'vitest';
import { HueModel } from '../../drivers/hue/mapping.ts';
import { deviceInfo as mqttDeviceInfo } from '../../drivers/mqtt/device.ts';
import { HaDiscovery } from '../../drivers/mqtt/discovery/home-assistant.ts';
import { parseTasmotaConfig } from '../../drivers/mqtt/discovery/tasmota.ts';
import { parseBridgeDevices } from '../../drivers/mqtt/discovery/zigbee2mqtt.ts';
import { parseDevice } from '../../drivers/mqtt/options.ts';
import { type ZigbeeDeviceRecord, deviceInfo as zigbeeDeviceInfo } from '../../drivers/zigbee/device.ts';

const json = (v: unknown) => Buffer.from(JSON.stringify(v));

describe('plugs: what each driver knows', () => {
  it('Hue: a light whose device has product_archetype "plug" (whatever the user set as its icon)', () => {
    const model = new HueModel();
    const device = (id: string, archetype: string) => ({
      id,
      type: 'device',
      metadata: { name: id, archetype: 'floor_shade' },
      product_data: { product_archetype: archetype, product_name: 'x' },
    });
    const light = (id: string, owner: string) => ({
      id,
      type: 'light',
      owner: { rid: owner, rtype: 'device' },
      metadata: { name: id, archetype: 'floor_shade' },
      on: { on: false },
    });
    model.load([device('d1', 'plug'), light('l1', 'd1'), device('d2', 'sultan_bulb'), light('l2', 'd2')]);
    const byId = new Map(model.devices().map((d) => [d.protocolid, d]));
    expect(byId.get('l1')).toMatchObject({ kind: 'binary', plug: true });
    expect(byId.get('l2')).not.toHaveProperty('plug');
  });

  it('Zigbee: an On/Off Plug-in Unit, Smart Plug, Mains Power Outlet or ZLL plug endpoint; not an On/Off Light', () => {
    const record = (deviceId: number): ZigbeeDeviceRecord => ({
      ieee: '0x00124b0001020304',
      nwk: 0x1234,
      endpoints: [{ id: 1, deviceId, inClusters: [0x0000, 0x0006], outClusters: [] }],
      interviewed: true,
    });
    for (const id of [0x010a, 0x0051, 0x0009, 0x0010])
      expect(zigbeeDeviceInfo(record(id))).toMatchObject({ kind: 'binary', plug: true });
    expect(zigbeeDeviceInfo(record(0x0100))).not.toHaveProperty('plug');
  });

  it('zigbee2mqtt: a switch whose definition says plug, outlet or socket; not a wall switch module', () => {
    const entry = (name: string, description: string, type = 'switch') => ({
      friendly_name: name,
      type: 'Router',
      definition: { description, exposes: [{ type, features: [{ name: 'state' }] }] },
    });
    const devices = parseBridgeDevices(
      json([
        entry('kettle', 'Smart plug (with power monitoring)'),
        entry('desk', 'TRADFRI control outlet'),
        entry('relay', 'Wall switch module'),
        entry('bulb', 'Hue white plug-in lamp', 'light'),
      ]),
      'zigbee2mqtt',
    );
    const plug = Object.fromEntries(devices.map((d) => [d.address.split('/')[1], d.plug === true]));
    expect(plug).toEqual({ kettle: true, desk: true, relay: false, bulb: false });
  });

  it('Home Assistant: a switch of device class outlet (also abbreviated), not one of class switch', () => {
    const ha = new HaDiscovery('homeassistant');
    const upsert = (id: string, body: Record<string, unknown>) => {
      const c = ha.handle(`homeassistant/switch/${id}/config`, json({ cmd_t: `${id}/set`, ...body }));
      return c && 'upsert' in c ? c.upsert : null;
    };
    expect(upsert('a', { device_class: 'outlet' })).toMatchObject({ kind: 'binary', plug: true });
    expect(upsert('b', { dev_cla: 'outlet' })).toMatchObject({ plug: true });
    expect(upsert('c', { device_class: 'switch' })).not.toHaveProperty('plug');
    // Remembered and read again at the next start, and handed to the plugin.
    const remembered = parseDevice(JSON.parse(JSON.stringify(upsert('a', { device_class: 'outlet' }))), {
      zigbee2mqttBase: 'zigbee2mqtt',
    });
    expect(mqttDeviceInfo(remembered)).toMatchObject({ protocolid: 'ha:a', plug: true });
  });

  it('Tasmota: a relay is a plug unless SetOption30 announces it as a light', () => {
    const upsert = (mac: string, so: Record<string, number>) => {
      const c = parseTasmotaConfig(
        `tasmota/discovery/${mac}/config`,
        json({ t: `dev${mac}`, rl: [1], so }),
        new Map(),
      );
      return c && 'upsert' in c ? c.upsert : null;
    };
    expect(upsert('A1', {})).toMatchObject({ kind: 'binary', plug: true });
    expect(upsert('A2', { '30': 1 })).not.toHaveProperty('plug');
  });

  it('Shelly: the model in the id (shellyplug-s, shellyplusplugs), not a Shelly 1 relay', () => {
    const d = (id: string) => parseDevice({ protocolid: id }, { zigbee2mqttBase: 'zigbee2mqtt' });
    expect(d('shelly1:shellyplug-s-7AD3F1:relay:0').plug).toBe(true);
    expect(d('shelly2:shellyplusplugs-a8032ab1:switch:0').plug).toBe(true);
    expect(d('shelly1:shelly1-34945470:relay:0').plug).toBeUndefined();
  });
});
