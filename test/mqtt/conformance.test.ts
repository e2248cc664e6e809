/**
 * The shared lighting-driver conformance suite against the MQTT driver, once per profile family, each
 * with a simulated device (a real mqtt.js client) on a real broker; the link checks stop and restart it.
 */
import type { MqttApi } from '../../core/mqtt/types.ts';
import { HUE_GAMUT_C, SRGB_GAMUT } from '../../drivers/lighting/index.ts';
import { createMqttDriver, createMqttDriverFactory } from '../../drivers/mqtt/driver.ts';
import { connectFanout, inProcessLink } from '../../drivers/mqtt/inprocess-link.ts';
import { startShellyDimmer } from '../../scripts/simulators/shelly-dimmer.ts';
import { startTasmotaBulb } from '../../scripts/simulators/tasmota-bulb.ts';
import { startZigbee2mqtt } from '../../scripts/simulators/zigbee2mqtt.ts';
import { describeDriverConformance } from '../drivers/conformance.ts';
import { startTestHub } from '../helpers/hub.ts';
import { startAedes } from './fixtures.ts';

const fast = (url: string) => ({ url, reconnectMinMs: 100, reconnectMaxMs: 400 });

describeDriverConformance('mqtt: zigbee2mqtt bulb and wall switch', async () => {
  const broker = await startAedes();
  const z2m = await startZigbee2mqtt({
    url: broker.url,
    devices: [
      { name: 'bulb', type: 'bulb' },
      { name: 'switch', type: 'switch' },
      { name: 'lamp', type: 'colour' },
    ],
  });
  return {
    factory: createMqttDriver,
    options: {
      broker: fast(broker.url),
      devices: [
        { protocolid: 'zigbee2mqtt:bulb' },
        { protocolid: 'zigbee2mqtt:switch', kind: 'sensor' },
        { protocolid: 'zigbee2mqtt:lamp' },
      ],
    },
    light: 'zigbee2mqtt:bulb',
    colourLight: {
      protocolid: 'zigbee2mqtt:lamp',
      capabilities: { ct: { min: 153, max: 500 }, xy: { gamut: HUE_GAMUT_C } },
      received: () => z2m.colourCommands('lamp'),
    },
    reports: true,
    async pressButton() {
      await z2m.press('switch', 'on');
      return { protocolid: 'zigbee2mqtt:switch', event: 'on' };
    },
    dropLink: () => broker.stop(),
    restoreLink: () => broker.start(),
    async teardown() {
      z2m.crash();
      await broker.stop();
    },
  };
});

describeDriverConformance('mqtt: tasmota bulb', async () => {
  const broker = await startAedes();
  const bulb = await startTasmotaBulb({ url: broker.url, topic: 'tasmota_desk' });
  return {
    factory: createMqttDriver,
    options: { broker: fast(broker.url), devices: [{ protocolid: 'tasmota:tasmota_desk' }] },
    light: 'tasmota:tasmota_desk',
    reports: true,
    async pressButton() {
      await bulb.press(1, 'SINGLE');
      return { protocolid: 'tasmota:tasmota_desk', event: 'button1-single' };
    },
    dropLink: () => broker.stop(),
    restoreLink: () => broker.start(),
    async teardown() {
      bulb.crash();
      await broker.stop();
    },
  };
});

describeDriverConformance('mqtt: tasmota RGBCW bulb', async () => {
  const broker = await startAedes();
  const bulb = await startTasmotaBulb({ url: broker.url, topic: 'tasmota_rgb', colour: true });
  const light = 'tasmota:tasmota_rgb';
  return {
    factory: createMqttDriver,
    options: { broker: fast(broker.url), devices: [{ protocolid: light }] },
    light,
    // Tasmota's CT runs 153–500; colour goes as hue and saturation, exact at the sRGB primaries.
    colourLight: {
      protocolid: light,
      capabilities: { ct: { min: 153, max: 500 }, xy: { gamut: SRGB_GAMUT } },
      received: () => bulb.colourCommands,
    },
    reports: true,
    async teardown() {
      bulb.crash();
      await broker.stop();
    },
  };
});

describeDriverConformance('mqtt: shelly gen1 dimmer', async () => {
  const broker = await startAedes();
  const dimmer = await startShellyDimmer({ url: broker.url, id: 'shellydimmer2-E8DB84' });
  const light = 'shelly1:shellydimmer2-E8DB84:light:0';
  return {
    factory: createMqttDriver,
    options: { broker: fast(broker.url), devices: [{ protocolid: light }] },
    light,
    reports: true,
    async pressButton() {
      await dimmer.press('S');
      return { protocolid: light, event: 'input0-single' };
    },
    dropLink: () => broker.stop(),
    restoreLink: () => broker.start(),
    async teardown() {
      dimmer.crash();
      await broker.stop();
    },
  };
});

describeDriverConformance('mqtt: in process on the hub broker (zigbee2mqtt bulb)', async () => {
  // The plugin's path: the driver talks to the hub's embedded aedes through ctx.mqtt, no socket.
  let api: MqttApi | undefined;
  const t = await startTestHub({
    config: { mqtt: { allowAnonymous: true } },
    extraPlugins: [
      {
        name: 'mqtt-probe',
        version: '0.0.0',
        description: 'hands its ctx.mqtt to the test',
        configSchema: { type: 'object', properties: {} },
        async start(ctx) {
          api = ctx.mqtt;
          return { stop() {} };
        },
      },
    ],
  });
  const z2m = await startZigbee2mqtt({
    url: t.mqttUrl,
    devices: [
      { name: 'bulb', type: 'bulb' },
      { name: 'switch', type: 'switch' },
    ],
  });
  return {
    factory: createMqttDriverFactory({ inProcess: () => inProcessLink(api!, connectFanout(api!)) }),
    options: {
      devices: [{ protocolid: 'zigbee2mqtt:bulb' }, { protocolid: 'zigbee2mqtt:switch', kind: 'sensor' }],
    },
    light: 'zigbee2mqtt:bulb',
    reports: true,
    async pressButton() {
      await z2m.press('switch', 'off');
      return { protocolid: 'zigbee2mqtt:switch', event: 'off' };
    },
    async teardown() {
      await z2m.stop();
      await t.stop();
    },
  };
});
