/**
 * Whole-group commands (docs/lighting.md#whole-group-commands): a group toggle gives a driver that takes
 * group commands one `setGroupState` for its members that go to the same level, and every other light
 * its own `setState`; a refused group command fails exactly those lights and leaves their levels alone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { GroupTarget, LightCommand } from '../../drivers/lighting/index.ts';
import { type Json, type LightingHarness, startLighting } from './harness.ts';
import { testDriverType } from './test-driver.ts';

let h: LightingHarness | null = null;
afterEach(async () => {
  await h?.t.stop();
  h = null;
});

/** The test driver plus `setGroupState`, recording each group command and applying it per member. */
async function withGroupDriver(harness: LightingHarness) {
  const { factory, instances } = testDriverType();
  const calls: Array<{ group: GroupTarget; cmd: LightCommand }> = [];
  const state = { fail: false };
  harness.lighting.registerDriverType('gtest', (init) => {
    const d = factory(init);
    return {
      ...d,
      async setGroupState(group, cmd) {
        calls.push({ group, cmd });
        if (state.fail) throw new Error('radio down');
        const c = instances.get('gd');
        for (const m of group.members) await c?.setState(m.protocolid, { on: cmd.on, bri: cmd.bri });
      },
    };
  });
  await harness.lighting.addDriver({ id: 'gd', type: 'gtest', site: harness.siteid });
  return { calls, state, control: () => instances.get('gd') };
}

async function light(harness: LightingHarness, vendor: string, id: string): Promise<string> {
  const r = await harness.call('POST', '/light', { name: id, type: 'dimmable', vendor, [`${vendor}id`]: id });
  expect(r.status).toBe(201);
  return r.body._id as string;
}

describe('whole-group commands', () => {
  it('one group command for the members of a group-capable driver, setState for the rest', async () => {
    h = await startLighting();
    const g = await withGroupDriver(h);
    const a = await light(h, 'gtest', 'a');
    const b = await light(h, 'gtest', 'b');
    const c = await light(h, 'test', 'c');
    const group = (await h.call('POST', '/light/group', { name: 'All', lights: [a, b, c] })).body as Json;

    const on = await h.call('PUT', '/light/group/toggle', { _id: group._id });
    expect(on.status).toBe(200);
    expect(on.body.failed).toEqual([]);
    expect(on.body.state.map((s: Json) => s._id)).toEqual([a, b, c]);
    expect(g.calls).toHaveLength(1);
    expect(g.calls[0]?.group).toEqual({
      id: group._id,
      members: [
        { protocolid: 'a', light: { type: 'dimmable' } },
        { protocolid: 'b', light: { type: 'dimmable' } },
      ],
    });
    expect(g.calls[0]?.cmd).toEqual({ on: true, bri: 255 });
    // The group-capable driver's setState was only called by its own group command; the other light got its own.
    expect(h.driver.commands.map((x) => x.protocolid)).toEqual(['c']);
    const lights = (await h.call('GET', '/light')).body as Json[];
    expect(lights.every((l: Json) => l.on && l.bri === 255)).toBe(true);
  });

  it('members going to different levels, or alone on their driver, get their own commands', async () => {
    h = await startLighting();
    const g = await withGroupDriver(h);
    const a = await light(h, 'gtest', 'a');
    const b = await light(h, 'gtest', 'b');
    // Different last brightness: the toggle on gives each its own, so no group command.
    await h.call('PUT', '/light/state', { _id: a, on: true, bri: 100 });
    await h.call('PUT', '/light/state', { _id: a, on: false, bri: 0 });
    const group = (await h.call('POST', '/light/group', { name: 'Two', lights: [a, b] })).body as Json;
    const sentBefore = g.control()?.commands.length ?? 0;
    const r = await h.call('PUT', '/light/group/toggle', { _id: group._id });
    expect(r.body.failed).toEqual([]);
    expect(g.calls).toHaveLength(0);
    expect((g.control()?.commands.length ?? 0) - sentBefore).toBe(2);

    const solo = (await h.call('POST', '/light/group', { name: 'Solo', lights: [a] })).body as Json;
    await h.call('PUT', '/light/group/toggle', { _id: solo._id });
    expect(g.calls).toHaveLength(0);
  });

  it('a refused group command fails its lights with the driver error and keeps their levels', async () => {
    h = await startLighting();
    const g = await withGroupDriver(h);
    const a = await light(h, 'gtest', 'a');
    const b = await light(h, 'gtest', 'b');
    const group = (await h.call('POST', '/light/group', { name: 'Two', lights: [a, b] })).body as Json;
    g.state.fail = true;
    const r = await h.call('PUT', '/light/group/toggle', { _id: group._id });
    expect(r.status).toBe(200);
    expect(r.body.state).toEqual([]);
    expect(r.body.failed.map((f: Json) => f._id).sort()).toEqual([a, b].sort());
    expect(r.body.failed[0].message).toMatch(/could not send the command to group/);
    const lights = (await h.call('GET', '/light')).body as Json[];
    expect(lights.every((l: Json) => !l.on)).toBe(true);
    // Nothing left desired: the next toggle still turns them on (the group is still off).
    g.state.fail = false;
    await h.call('PUT', '/light/group/toggle', { _id: group._id });
    expect(g.calls.at(-1)?.cmd).toEqual({ on: true, bri: 255 });
  });
});
