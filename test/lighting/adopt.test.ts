/**
 * Lights and sensors another plugin creates (`createLight` / `createSensor`, the MQTT plugin adopting
 * discovered devices): the site API's validation, durable commit and `siteChanged` push, the `new` mark in
 * every view, cleared by `PUT /light|/sensor {"new": false}` or `acceptDevice`, with `lighting.device.accepted`.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PluginDefinition } from '../../core/plugin/types.ts';
import type { DeviceAccepted, LightingExports } from '../../plugins/lighting/types.ts';
import { startTestHub } from '../helpers/hub.ts';
import { attach, type Json, type LightingHarness } from './harness.ts';
import { SiteSocket } from './ws-client.ts';

let h: LightingHarness;
const accepted: DeviceAccepted[] = [];

function probe(onStart: (l: LightingExports) => void): PluginDefinition {
  return {
    name: 'adopt-probe',
    version: '0.0.0',
    description: 'test probe',
    requires: ['lighting'],
    configSchema: { type: 'object', properties: {} },
    async start(ctx) {
      onStart(ctx.use('lighting'));
      ctx.bus.on('lighting.device.accepted', (a) => {
        accepted.push(a);
      });
      return { stop() {} };
    },
  };
}

beforeAll(async () => {
  let lighting: LightingExports | undefined;
  const t = await startTestHub({ plugins: ['lighting'], extraPlugins: [probe((l) => (lighting = l))] });
  h = await attach(t, lighting!);
});
afterAll(() => h.t.stop());

const configFile = () => readFile(path.join(h.t.dataDir, 'lighting.config.json'), 'utf8');

describe('lights and sensors created by another plugin', () => {
  it('creates a light marked new: durable, pushed, listed, driven like any other', async () => {
    const ws = await SiteSocket.open(`${h.api}/ws`);
    try {
      await ws.next('hello');
      const light = await h.lighting.createLight(
        h.siteid,
        { name: 'Hall', type: 'dimmable', vendor: 'test', protocolid: 'hall' },
        { new: true },
      );
      expect(light).toMatchObject({ name: 'Hall', vendor: 'test', testid: 'hall', new: true, on: false });
      expect(await configFile()).toContain(light._id);
      const pushed = await ws.next('siteChanged', (d) => d.lights.some((l: Json) => l._id === light._id));
      expect(pushed.data.lights.find((l: Json) => l._id === light._id).new).toBe(true);
      expect((await h.call('GET', '/light')).body).toEqual([
        expect.objectContaining({ _id: light._id, new: true }),
      ]);
      expect((await h.call('GET', '')).body.lights[0].new).toBe(true);
      expect((await h.call('PUT', '/light/state', { _id: light._id, on: true, bri: 9 })).status).toBe(200);
      await expect.poll(async () => (await h.call('GET', '/light')).body[0].bri).toBe(9);
      // Still new after a state change and a rename; `new: true` sent back changes nothing.
      const renamed = await h.call('PUT', '/light', { _id: light._id, name: 'Hall lamp', new: true });
      expect(renamed.body).toMatchObject({ name: 'Hall lamp', new: true });
      expect(accepted).toEqual([]);

      const cleared = await h.call('PUT', '/light', { _id: light._id, new: false });
      expect(cleared.status).toBe(200);
      expect(cleared.body.new).toBe(false);
      expect(accepted).toEqual([
        { siteId: h.siteid, kind: 'light', _id: light._id, vendor: 'test', protocolid: 'hall' },
      ]);
      await ws.next('siteChanged', (d) => d.lights.some((l: Json) => l._id === light._id && !l.new));
      expect(JSON.parse(await configFile()).lights[0].new).toBeUndefined();
      expect((await h.call('PUT', '/light', { _id: light._id, new: 'no' })).status).toBe(400);
    } finally {
      ws.ws.close();
    }
  });

  it('a light made on the site API is never new; POST ignores new', async () => {
    const made = await h.call('POST', '/light', {
      name: 'Desk',
      type: 'binary',
      vendor: 'test',
      testid: 'desk',
      new: true,
    });
    expect(made.status).toBe(201);
    expect(made.body.new).toBe(false);
  });

  it('validates like the site API: bad fields 400, a taken vendor id 409, an unknown site 404', async () => {
    const bad = (p: Promise<unknown>) =>
      p.then(
        () => 0,
        (e: { status: number }) => e.status,
      );
    expect(
      await bad(
        h.lighting.createLight(h.siteid, { name: '', type: 'dimmable', vendor: 'test', protocolid: 'x' }),
      ),
    ).toBe(400);
    expect(
      await bad(
        h.lighting.createLight(h.siteid, { name: 'x', type: 'dimmable', vendor: 'Bad!', protocolid: 'x' }),
      ),
    ).toBe(400);
    expect(
      await bad(
        h.lighting.createLight(h.siteid, { name: 'x', type: 'binary', vendor: 'test', protocolid: 'hall' }),
      ),
    ).toBe(409);
    expect(
      await bad(
        h.lighting.createLight('nope', { name: 'x', type: 'binary', vendor: 'test', protocolid: 'y' }),
      ),
    ).toBe(404);
    expect(
      await bad(
        h.lighting.createSensor(h.siteid, {
          name: 'x',
          vendor: 'test',
          protocolid: 'z',
          type: 'button',
          events: ['__proto__'],
        }),
      ),
    ).toBe(400);
    expect((await h.call('GET', '/light')).body.map((l: Json) => l.name).sort()).toEqual([
      'Desk',
      'Hall lamp',
    ]);
  });

  it('creates a sensor marked new whose events work; acceptDevice clears the mark once', async () => {
    accepted.length = 0;
    const sensor = await h.lighting.createSensor(
      h.siteid,
      { name: 'Remote', vendor: 'test', protocolid: 'r1', type: 'button', events: ['on', 'off'] },
      { new: true },
    );
    expect(sensor).toMatchObject({ testid: 'r1', events: ['on', 'off'], actions: {}, new: true });
    expect((await h.call('GET', '/sensor')).body[0].new).toBe(true);
    h.driver.press('r1', 'on');
    await expect.poll(async () => (await h.call('GET', '/sensor/event')).body[0]?.event).toBe('on');
    expect(await h.lighting.acceptDevice(h.siteid, 'test', 'r1')).toBe(1);
    expect(await h.lighting.acceptDevice(h.siteid, 'test', 'r1')).toBe(0);
    expect((await h.call('GET', '/sensor')).body[0].new).toBe(false);
    expect(accepted).toEqual([
      { siteId: h.siteid, kind: 'sensor', _id: sensor._id, vendor: 'test', protocolid: 'r1' },
    ]);
    // PUT /sensor {"new": false} on a sensor that is not new emits nothing.
    expect((await h.call('PUT', '/sensor', { _id: sensor._id, new: false })).body.new).toBe(false);
    expect(accepted).toHaveLength(1);
  });
});
