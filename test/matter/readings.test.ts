/**
 * Sensor readings through a commissioned bridge: a sensor that reports temperature, humidity and
 * illuminance appears as a Temperature, a Humidity and a Light Sensor (in 0.01 °C, 0.01 % and
 * 10000·log10(lux)+1), a reading it gains later gets its endpoint, and new values reach the subscribed
 * controller.
 */
import type { ClientNode } from '@matter/main';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestController } from '../helpers/matter-controller.ts';
import { type Json, type MatterHarness, startMatter, until } from './harness.ts';

describe('matter bridge: sensor readings', () => {
  let h: MatterHarness;
  let controller: TestController;
  let peer: ClientNode;
  let weather = '';
  let motion = '';
  const part = (key: string) => TestController.bridged(peer).get(key);

  beforeAll(async () => {
    h = await startMatter();
    const w = await h.call('POST', '/sensor', {
      name: 'Balcony',
      vendor: 'test',
      testid: 'weather',
      type: 'weather',
      events: [],
    });
    expect(w.status).toBe(201);
    weather = w.body._id;
    const m = await h.call('POST', '/sensor', {
      name: 'Landing',
      vendor: 'test',
      testid: 'pir',
      type: 'motion',
      events: ['motion', 'no_motion'],
    });
    motion = m.body._id;
    h.driver().measure('weather', { temperature: 21.5, humidity: 40.25, battery: 80 });
    await until(
      async () =>
        (await h.call('GET', '/sensor')).body.find((s: Json) => s._id === weather)?.readings?.humidity,
      'the readings in Hearth',
    );
    controller = await TestController.create({ label: 'Home Assistant', vendorId: 0x134b });
    const opened = (await h.t.admin('POST', `/admin/matter/${h.siteid}/window`)).body as Json;
    peer = await controller.commission(opened.port, opened.manualPairingCode);
  }, 60_000);

  afterAll(async () => {
    await controller?.close();
    await h?.t.stop();
  });

  it('a sensor with temperature and humidity is a Temperature Sensor and a Humidity Sensor, in 0.01 units', () => {
    const t = part(`${weather}-t`);
    const rh = part(`${weather}-h`);
    expect(t?.deviceType).toBe(0x0302);
    expect(rh?.deviceType).toBe(0x0307);
    expect(t?.endpoint.state.temperatureMeasurement.measuredValue).toBe(2150);
    expect(rh?.endpoint.state.relativeHumidityMeasurement.measuredValue).toBe(4025);
    expect(t?.endpoint.state.bridgedDeviceBasicInformation.nodeLabel).toBe('Balcony');
    // No light sensor (no illuminance yet), and nothing for the battery.
    expect(part(`${weather}-l`)).toBeUndefined();
    expect(part(weather)).toBeUndefined();
  });

  it('new values reach the subscribed controller', async () => {
    h.driver().measure('weather', { temperature: -3.14, humidity: 99.99 });
    await until(
      () => part(`${weather}-t`)?.endpoint.state.temperatureMeasurement.measuredValue === -314,
      'temperature -314',
    );
    await until(
      () => part(`${weather}-h`)?.endpoint.state.relativeHumidityMeasurement.measuredValue === 9999,
      'humidity 9999',
    );
  });

  it('illuminance reported later adds a Light Sensor at 10000·log10(lux)+1, next to the occupancy sensor', async () => {
    h.driver().measure('pir', { illuminance: 1000 });
    const light: Json = await until(() => part(`${motion}-l`), 'the Light Sensor');
    expect(light.deviceType).toBe(0x0106);
    await until(
      () => light.endpoint.state.illuminanceMeasurement.measuredValue === 30001,
      'illuminance 30001',
    );
    expect(part(motion)?.deviceType).toBe(0x0107);
    h.driver().measure('pir', { illuminance: 0 });
    await until(() => light.endpoint.state.illuminanceMeasurement.measuredValue === 0, 'too dark (0)');
  });

  it('a measurement endpoint follows its sensor link', async () => {
    h.driver().setConnected(false);
    await until(
      () => part(`${weather}-t`)?.endpoint.state.bridgedDeviceBasicInformation.reachable === false,
      'unreachable',
    );
    h.driver().setConnected(true);
    await until(
      () => part(`${weather}-t`)?.endpoint.state.bridgedDeviceBasicInformation.reachable === true,
      'reachable',
    );
  });
});
