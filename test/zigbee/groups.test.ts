/**
 * Hearth groups as Zigbee groups against each simulated stick (Z-Stack and EZSP): members are added to a Zigbee group before
 * the first whole-group command, which then goes out as one groupcast per frame; membership follows the
 * Hearth group; a member that cannot be taken out moves the group to a fresh Zigbee group id.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { GroupTarget } from '../../drivers/lighting/index.ts';
import { Attr, Cluster } from '../../drivers/zigbee/zcl/clusters.ts';
import { type Json, type MqttHub, startMqttHub } from '../mqtt/hub.ts';
import { type AnySimulator, IEEE, makeDriver, PID, pairAll, STICKS } from './sim-helpers.ts';

let sim: AnySimulator | null = null;
let h: MqttHub | null = null;
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c().catch(() => {});
  await h?.t.stop();
  h = null;
  await sim?.stop();
  sim = null;
});

const dimmable = { type: 'dimmable' as const };
const binary = { type: 'binary' as const };

async function until<T>(probe: () => T | undefined | Promise<T | undefined>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Unicast data frames handed to the stick (AF data requests on Z-Stack, sendUnicast on EZSP). */
const unicasts = (c: AnySimulator['coordinator']) =>
  (c.log as Array<{ name: string }>).filter((m) => m.name === 'afDataRequest' || m.name === 'sendUnicast')
    .length;

describe.each(STICKS)('zigbee groups on a simulated $kind stick', (stick) => {
  it('adds members to a Zigbee group once, then sends each group command as one groupcast', async () => {
    sim = await stick.start({ blank: false });
    const { driver, sink, store } = makeDriver(sim);
    cleanup.push(() => driver.stop());
    await driver.start();
    await pairAll(sim, driver, ['colourBulb', 'dimmableBulb']);
    const c = sim.coordinator;
    const colour = c.devices.get('colourBulb');
    const dim = c.devices.get('dimmableBulb');
    const group: GroupTarget = {
      id: 'g-living',
      members: [
        { protocolid: PID.colourBulb, light: dimmable },
        { protocolid: PID.dimmableBulb, light: dimmable },
      ],
    };
    const unicastsBefore = unicasts(c);
    await driver.setGroupState(group, { on: true, bri: 128, transition: 0.5 });
    const zigbeeId = store.groups()[0]?.zigbeeId as number;
    expect(store.groups()).toEqual([
      { id: 'g-living', zigbeeId, members: [PID.colourBulb, PID.dimmableBulb] },
    ]);
    expect(colour?.groups.has(zigbeeId)).toBe(true);
    expect(dim?.groups.has(zigbeeId)).toBe(true);
    // Two add-group unicasts, then one groupcast for both bulbs.
    expect(unicasts(c) - unicastsBefore).toBe(2);
    expect(c.groupcasts).toEqual([{ group: zigbeeId, cluster: Cluster.LEVEL }]);
    await until(() => (colour?.attr(Cluster.LEVEL, Attr.LEVEL_CURRENT) === 127 ? true : undefined));
    expect(dim?.attr(Cluster.LEVEL, Attr.LEVEL_CURRENT)).toBe(127);
    // Each bulb reports its own state.
    await until(() =>
      sink.reports.some((r) => r.kind === 'state' && r.protocolid === PID.dimmableBulb) ? true : undefined,
    );

    // The next command: no unicast at all.
    const before = unicasts(c);
    await driver.setGroupState(group, { on: false, bri: 0 });
    expect(unicasts(c)).toBe(before);
    expect(c.groupcasts.at(-1)).toEqual({ group: zigbeeId, cluster: Cluster.ON_OFF });
    await until(() => (colour?.attr(Cluster.ON_OFF, Attr.ON_OFF) === false ? true : undefined));
    expect(dim?.attr(Cluster.ON_OFF, Attr.ON_OFF)).toBe(false);
  });

  it('follows membership: a light taken out of the Hearth group leaves the Zigbee group; a switch-only member is switched', async () => {
    sim = await stick.start({ blank: false });
    const { driver, store } = makeDriver(sim);
    cleanup.push(() => driver.stop());
    await driver.start();
    await pairAll(sim, driver, ['colourBulb', 'dimmableBulb', 'plug']);
    const c = sim.coordinator;
    const all: GroupTarget = {
      id: 'g1',
      members: [
        { protocolid: PID.colourBulb, light: dimmable },
        { protocolid: PID.dimmableBulb, light: dimmable },
        { protocolid: PID.plug, light: binary },
      ],
    };
    await driver.setGroupState(all, { on: true, bri: 255 });
    const id = store.groups()[0]?.zigbeeId as number;
    // Full brightness for a mixed group: level for the dimmers, on for the plug, both as groupcasts.
    expect(c.groupcasts.map((g) => g.cluster)).toEqual([Cluster.LEVEL, Cluster.ON_OFF]);
    await until(() => (c.devices.get('plug')?.attr(Cluster.ON_OFF, Attr.ON_OFF) === true ? true : undefined));

    // Half brightness cannot go to the plug as a level: every member gets its own command instead.
    const casts = c.groupcasts.length;
    await driver.setGroupState(all, { on: true, bri: 128 });
    expect(c.groupcasts.length).toBe(casts);
    expect(c.devices.get('plug')?.received.at(-1)?.cluster).toBe(Cluster.ON_OFF);

    await driver.setGroupState({ id: 'g1', members: all.members.slice(0, 2) }, { on: false, bri: 0 });
    expect(c.devices.get('plug')?.groups.has(id)).toBe(false);
    expect(store.groups()[0]?.members).toEqual([PID.colourBulb, PID.dimmableBulb]);
    await until(() =>
      c.devices.get('colourBulb')?.attr(Cluster.ON_OFF, Attr.ON_OFF) === false ? true : undefined,
    );
    expect(c.devices.get('plug')?.attr(Cluster.ON_OFF, Attr.ON_OFF)).toBe(true);
  });

  it('a member that left and joined again is added to the Zigbee group again', async () => {
    sim = await stick.start({ blank: false });
    const { driver, store } = makeDriver(sim);
    cleanup.push(() => driver.stop());
    await driver.start();
    await pairAll(sim, driver, ['colourBulb', 'dimmableBulb']);
    const c = sim.coordinator;
    const both: GroupTarget = {
      id: 'g3',
      members: [
        { protocolid: PID.colourBulb, light: dimmable },
        { protocolid: PID.dimmableBulb, light: dimmable },
      ],
    };
    await driver.setGroupState(both, { on: true, bri: 255 });
    const id = store.groups()[0]?.zigbeeId as number;
    // Factory reset: it leaves, forgets its groups, and is paired again.
    await driver.removeDevice(IEEE.dimmableBulb);
    c.devices.get('dimmableBulb')?.groups.clear();
    expect(store.groups()[0]?.members).toEqual([PID.colourBulb]);
    await pairAll(sim, driver, ['dimmableBulb']);
    await driver.setGroupState(both, { on: false, bri: 0 });
    expect(c.devices.get('dimmableBulb')?.groups.has(id)).toBe(true);
    await until(() =>
      c.devices.get('dimmableBulb')?.attr(Cluster.ON_OFF, Attr.ON_OFF) === false ? true : undefined,
    );
  });

  it('moves the group to a fresh Zigbee group id when a member cannot be taken out', async () => {
    sim = await stick.start({ blank: false });
    const { driver, store } = makeDriver(sim);
    cleanup.push(() => driver.stop());
    await driver.start();
    await pairAll(sim, driver, ['colourBulb', 'dimmableBulb']);
    const c = sim.coordinator;
    const both: GroupTarget = {
      id: 'g2',
      members: [
        { protocolid: PID.colourBulb, light: dimmable },
        { protocolid: PID.dimmableBulb, light: dimmable },
      ],
    };
    await driver.setGroupState(both, { on: true, bri: 255 });
    const first = store.groups()[0]?.zigbeeId as number;
    // The dimmable bulb stops answering (out of range), then is taken out of the Hearth group.
    c.faults.noRoute.add('dimmableBulb');
    c.faults.noRouteSticky = true;
    await driver.setGroupState({ id: 'g2', members: both.members.slice(0, 1) }, { on: false, bri: 0 });
    const second = store.groups()[0]?.zigbeeId as number;
    expect(second).not.toBe(first);
    expect(c.devices.get('colourBulb')?.groups.has(second)).toBe(true);
    // The silent bulb still listens to the old id, which is never used again: it stays on.
    expect(c.groupcasts.at(-1)).toEqual({ group: second, cluster: Cluster.ON_OFF });
    expect(c.devices.get('dimmableBulb')?.attr(Cluster.ON_OFF, Attr.ON_OFF)).toBe(true);
  });

  it('a group toggle through the site API reaches the bulbs as one groupcast', async () => {
    sim = await stick.start({ blank: true });
    h = await startMqttHub({ plugins: { zigbee: { path: sim.path, site: 'Home' } } }, ['lighting', 'zigbee']);
    await h.t.admin('POST', '/admin/zigbee/permit-join', { seconds: 60 });
    sim.coordinator.join('colourBulb');
    sim.coordinator.join('dimmableBulb');
    const lights = await until(async () => {
      const list = ((await h?.site('GET', '/light'))?.body ?? []) as Json[];
      return list.length === 2 ? list : undefined;
    });
    const created = await h.site('POST', '/light/group', {
      name: 'Both',
      lights: lights.map((l: Json) => l._id),
    });
    expect(created.status).toBe(201);
    const r = await h.site('PUT', '/light/group/toggle', { _id: created.body._id });
    expect(r.status).toBe(200);
    expect(r.body.failed).toEqual([]);
    expect(r.body.state.map((s: Json) => s._id)).toEqual(lights.map((l: Json) => l._id));
    const c = sim.coordinator;
    expect(c.groupcasts).toHaveLength(1);
    await until(() =>
      c.devices.get('dimmableBulb')?.attr(Cluster.ON_OFF, Attr.ON_OFF) === true &&
      c.devices.get('colourBulb')?.attr(Cluster.ON_OFF, Attr.ON_OFF) === true
        ? true
        : undefined,
    );
    // The lights' reported state follows the devices' own reports.
    await until(async () => {
      const list = ((await h?.site('GET', '/light'))?.body ?? []) as Json[];
      return list.every((l: Json) => l.on) ? true : undefined;
    });
  });
});
