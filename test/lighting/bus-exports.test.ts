/**
 * What other plugins follow and drive (Hearth's MQTT topics build on it): the bus events
 * `lighting.light.state` (every confirmed change, any driver), `lighting.sensor.event` (every sensor event)
 * and `lighting.site.changed`, and the exports `lights`, `sensors` and `setLightState` (PUT /light/state's
 * normalisation, coalescing and driver hand-over).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HearthEvents } from '../../core/bus/events.ts';
import type { PluginDefinition } from '../../core/plugin/types.ts';
import type { LightingExports } from '../../plugins/lighting/types.ts';
import { startTestHub } from '../helpers/hub.ts';
import { attach, type Json, type LightingHarness } from './harness.ts';

type Seen = { [E in keyof HearthEvents]: { event: E; data: HearthEvents[E] } }[keyof HearthEvents];
const seen: Seen[] = [];
const of = <E extends keyof HearthEvents>(event: E) =>
  seen.filter((s) => s.event === event).map((s) => s.data as HearthEvents[E]);

function probe(onStart: (l: LightingExports) => void): PluginDefinition {
  return {
    name: 'bus-probe',
    version: '0.0.0',
    description: 'test probe',
    requires: ['lighting'],
    configSchema: { type: 'object', properties: {} },
    async start(ctx) {
      onStart(ctx.use('lighting'));
      for (const event of ['lighting.light.state', 'lighting.sensor.event', 'lighting.site.changed'] as const)
        ctx.bus.on(event, (data) => {
          seen.push({ event, data } as Seen);
        });
      return { stop() {} };
    },
  };
}

let h: LightingHarness;
let desk: Json;
let porch: Json;
let button: Json;

beforeAll(async () => {
  let lighting: LightingExports | undefined;
  const t = await startTestHub({ plugins: ['lighting'], extraPlugins: [probe((l) => (lighting = l))] });
  h = await attach(t, lighting!);
  desk = (await h.call('POST', '/light', { name: 'Desk', type: 'dimmable', vendor: 'test', testid: 'd1' }))
    .body;
  porch = (await h.call('POST', '/light', { name: 'Porch', type: 'binary', vendor: 'test', testid: 'p1' }))
    .body;
  button = (
    await h.call('POST', '/sensor', {
      name: 'Wall',
      vendor: 'test',
      testid: 'b1',
      type: 'button',
      events: ['1'],
    })
  ).body;
});
afterAll(() => h.t.stop());

describe('lighting bus events and exports for other plugins', () => {
  it('announces configuration changes of the site', () => {
    expect(of('lighting.site.changed').filter((e) => e.siteId === h.siteid).length).toBeGreaterThanOrEqual(3);
  });

  it('setLightState normalises, hands over and answers like PUT /light/state', async () => {
    seen.length = 0;
    expect(await h.lighting.setLightState(h.siteid, desk._id, { on: false, bri: 120 })).toMatchObject({
      _id: desk._id,
      on: false,
      bri: 0,
    });
    const answer = await h.lighting.setLightState(h.siteid, porch._id, { on: true, bri: 3 });
    expect(answer).toMatchObject({ _id: porch._id, on: true, bri: 255 });
    expect(h.driver.commands.at(-1)).toMatchObject({ protocolid: 'p1', level: { on: true, bri: 255 } });
    await expect
      .poll(() => of('lighting.light.state').find((e) => e.lightId === porch._id))
      .toEqual({
        siteId: h.siteid,
        lightId: porch._id,
        on: true,
        bri: 255,
      });
    // "on" alone: back at the last non-zero level.
    await h.lighting.setLightState(h.siteid, desk._id, { on: true, bri: 77 });
    await h.lighting.setLightState(h.siteid, desk._id, { on: false, bri: 0 });
    await h.lighting.setLightState(h.siteid, desk._id, 'on');
    expect(h.driver.commands.at(-1)).toMatchObject({ protocolid: 'd1', level: { on: true, bri: 77 } });
    await expect
      .poll(() => h.lighting.lights(h.siteid).find((l) => l._id === desk._id))
      .toMatchObject({ on: true, bri: 77, testid: 'd1', new: false });
  });

  it('coalesces like the route: only the last of several commands to a busy light is sent', async () => {
    const release = h.driver.hold();
    const first = h.lighting.setLightState(h.siteid, desk._id, { on: true, bri: 10 });
    const before = h.driver.commands.length;
    const mid = h.lighting.setLightState(h.siteid, desk._id, { on: true, bri: 20 });
    const last = h.lighting.setLightState(h.siteid, desk._id, { on: true, bri: 30 });
    release();
    await Promise.all([first, mid, last]);
    expect(h.driver.commands.slice(before).map((c) => c.level.bri)).toEqual([30]);
  });

  it('emits a state event for every confirmed change of any origin, and none when nothing changed', async () => {
    seen.length = 0;
    h.driver.external('d1', { on: true, bri: 200 });
    h.driver.external('d1', { on: true, bri: 200 });
    expect(of('lighting.light.state')).toEqual([{ siteId: h.siteid, lightId: desk._id, on: true, bri: 200 }]);
  });

  it('refuses lights of another site or unknown ids with 404', async () => {
    const status = (p: Promise<unknown>) =>
      p.then(
        () => 0,
        (e: { status: number }) => e.status,
      );
    expect(await status(h.lighting.setLightState(h.siteid, 'nope', { on: true, bri: 1 }))).toBe(404);
    expect(await status(h.lighting.setLightState('other-site', desk._id, { on: true, bri: 1 }))).toBe(404);
    expect(h.lighting.lights('other-site')).toEqual([]);
  });

  it('emits every sensor event, from a driver and from the API', async () => {
    seen.length = 0;
    h.driver.press('b1', 'long');
    await h.call('POST', '/sensor/event', { _id: button._id, event: '1' });
    expect(of('lighting.sensor.event').map((e) => [e.sensorId, e.vendor, e.protocolid, e.event])).toEqual([
      [button._id, 'test', 'b1', 'long'],
      [button._id, 'test', 'b1', '1'],
    ]);
    expect(h.lighting.sensors(h.siteid)).toEqual([
      expect.objectContaining({ _id: button._id, testid: 'b1' }),
    ]);
  });
});
