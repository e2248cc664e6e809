/**
 * The driver against the simulated coordinator on a socat PTY pair: commissioning a blank stick, resuming
 * the same network after a restart, pairing each device, control and reports per capability, remotes and
 * motion as sensor events.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { memoryStateStore } from '../../drivers/zigbee/device.ts';
import { Attr, Cluster } from '../../drivers/zigbee/zcl/clusters.ts';
import { NV } from '../../drivers/zigbee/znp/mt.ts';
import type { NetworkParams } from '../../drivers/zigbee/znp/network.ts';
import { FRAME_COUNTER_MARGIN, type StickSecurity } from '../../drivers/zigbee/znp/nv-backup.ts';
import { NCP_IEEE } from '../../scripts/simulators/ezsp-ncp/index.ts';
import { COORDINATOR_IEEE, startZnpSimulator } from '../../scripts/simulators/znp-coordinator/index.ts';
import { type AnySimulator, IEEE, makeDriver, PID, pairAll, STICKS, startConnected } from './sim-helpers.ts';

let sim: AnySimulator | null = null;
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c().catch(() => {});
  await sim?.stop();
  sim = null;
});

async function started(
  opts: { blank?: boolean } = {},
  start: (o: { blank?: boolean }) => Promise<AnySimulator> = startZnpSimulator,
) {
  sim = await start(opts);
  const d = makeDriver(sim);
  cleanup.push(() => d.driver.stop());
  await startConnected(d);
  return d;
}

/** Where each kind of stick keeps the network, and what it calls writing and resuming it. */
function onStick(s: AnySimulator) {
  if ('kind' in s)
    return {
      networkKey: s.coordinator.tokens?.networkKey,
      extendedPanId: s.coordinator.tokens?.extendedPanId,
      writes: s.coordinator.log.filter(
        (m) => m.name === 'formNetwork' || m.name === 'setInitialSecurityState',
      ).length,
      resumedBy: 'networkInit',
      names: s.coordinator.log.map((m) => m.name),
    };
  return {
    networkKey: s.coordinator.nv.get(NV.PRECFGKEY)?.toString('hex'),
    extendedPanId: s.coordinator.nv.get(NV.EXTPANID)?.toString('hex'),
    writes: s.coordinator.log.filter((m) => m.name === 'sysOsalNvWrite').length,
    resumedBy: 'zdoStartupFromApp',
    names: s.coordinator.log.map((m) => m.name),
  };
}

describe.each(STICKS)('zigbee: commissioning and resuming on a simulated $kind stick', (stick) => {
  it('commissions a blank stick with a random network, persists it, and resumes the same network after a restart', async () => {
    const { driver, store } = await started({ blank: true }, stick.start);
    expect(driver.connection().connected).toBe(true);
    const net = store.network();
    expect(net).not.toBeNull();
    const s = sim as AnySimulator;
    expect(s.coordinator.formed).toBe(true);
    expect(s.coordinator.panId).toBe(net?.panId);
    expect(onStick(s).networkKey).toBe(net?.networkKey);
    expect([15, 20, 25]).toContain(net?.channel);
    await driver.stop();

    // A restart: the same store, the stick powered on again. No new commissioning.
    s.coordinator.powerCycle();
    const writesBefore = onStick(s).writes;
    const resumesBefore = onStick(s).names.filter((n) => n === onStick(s).resumedBy).length;
    const again = makeDriver(s, store);
    cleanup.push(() => again.driver.stop());
    await again.driver.start();
    expect(again.driver.connection().connected).toBe(true);
    expect(store.network()).toEqual(net);
    expect(onStick(s).writes).toBe(writesBefore);
    expect(onStick(s).names.filter((n) => n === onStick(s).resumedBy).length).toBeGreaterThan(resumesBefore);
  });

  it('two blank sticks get different networks', async () => {
    const a = await started({ blank: true }, stick.start);
    const first = a.store.network();
    await a.driver.stop();
    await sim?.stop();
    const b = await started({ blank: true }, stick.start);
    expect(b.store.network()?.extendedPanId).not.toBe(first?.extendedPanId);
    expect(b.store.network()?.networkKey).not.toBe(first?.networkKey);
  });

  it('restores a backed-up network onto a replacement (blank) stick', async () => {
    const a = await started({ blank: true }, stick.start);
    const net = a.store.network();
    await a.driver.stop();
    await sim?.stop();
    sim = await stick.start({ blank: true });
    const b = makeDriver(sim, a.store);
    cleanup.push(() => b.driver.stop());
    await b.driver.start();
    expect(sim.coordinator.panId).toBe(net?.panId);
    expect(onStick(sim).extendedPanId).toBe(net?.extendedPanId);
    expect(onStick(sim).networkKey).toBe(net?.networkKey);
  });

  it('a replacement stick for a stored network starts above the frame counter last read, even without a backup', async () => {
    sim = await stick.start({ blank: true });
    const store = memoryStateStore();
    await store.setNetwork({
      panId: 0x4321,
      extendedPanId: 'abcdefabcdefabcd',
      networkKey: '22'.repeat(16),
      channel: 20,
      frameCounter: 7000,
    });
    const d = makeDriver(sim, store);
    cleanup.push(() => d.driver.stop());
    await d.driver.start();
    expect(sim.coordinator.panId).toBe(0x4321);
    expect(sim.coordinator.frameCounter).toBe(7000 + FRAME_COUNTER_MARGIN);
  });
});

describe('zigbee: commissioning and resuming (Z-Stack only: its NV tables and serial bootloader)', () => {
  it("a backup carries the stick's frame counter and trust-centre link keys; restored onto a replacement stick above the old counter", async () => {
    sim = await startZnpSimulator({ blank: true });
    const a = makeDriver(sim);
    cleanup.push(() => a.driver.stop());
    await startConnected(a);
    await pairAll(sim, a.driver, ['plug', 'dimmableBulb']);
    for (let i = 0; i < 5; i++)
      await a.driver.setState(PID.plug, { on: i % 2 === 0, bri: i % 2 === 0 ? 255 : 0 });
    const old = sim.coordinator;
    expect(old.frameCounter).toBeGreaterThan(5);
    const stick = await a.driver.stickSecurity();
    expect(stick).toMatchObject({
      zstack: '3.x.0',
      frameCounter: old.frameCounter,
      keySequence: 0,
      tclkSeed: old.nv.get(0x0101)?.toString('hex'),
    });
    expect(stick?.tclkTable).toHaveLength(16);
    expect(stick?.addressManager).toHaveLength(16);
    // Two devices joined: two entries in use.
    expect(stick?.tclkTable?.filter((e) => !/^0+$/.test(e))).toHaveLength(2);
    // The network record keeps the last counter read at start, not a secret.
    expect(a.store.network()?.frameCounter).toBeTypeOf('number');
    const net = a.store.network();
    await a.driver.stop();
    await sim.stop();

    // A replacement stick: blank, same family. The restore forms the network, writes the security state,
    // resets the stick and starts it.
    sim = await startZnpSimulator({ blank: true });
    const fresh = sim.coordinator;
    const store = memoryStateStore();
    await store.setNetwork({ ...(net as NetworkParams), security: stick as StickSecurity });
    const b = makeDriver(sim, store);
    cleanup.push(() => b.driver.stop());
    await b.driver.start();
    expect(b.driver.connection().connected).toBe(true);
    expect(fresh.panId).toBe(net?.panId);
    expect(fresh.frameCounter).toBe((stick?.frameCounter ?? 0) + FRAME_COUNTER_MARGIN);
    expect(fresh.nv.get(0x0101)?.toString('hex')).toBe(stick?.tclkSeed);
    expect(fresh.nvEx.get('4:0')?.toString('hex')).toBe(stick?.tclkTable?.[0]);
    expect(fresh.nvEx.get('4:1')?.toString('hex')).toBe(stick?.tclkTable?.[1]);
    const names = fresh.log.map((m) => m.name);
    expect(names.indexOf('sysResetReq')).toBeGreaterThan(names.indexOf('appCnfBdbStartCommissioning'));
    expect(names.lastIndexOf('zdoStartupFromApp')).toBeGreaterThan(names.indexOf('sysResetReq'));
    // The one-time security state is gone from the store; the new counter is kept.
    expect(store.network()?.security).toBeUndefined();
    expect(store.network()?.frameCounter).toBe(fresh.frameCounter);
  });

  it('answers after the bootloader-skip byte when the first ping is silent', async () => {
    sim = await startZnpSimulator({ blank: true });
    sim.coordinator.faults.silentUntilBootloaderSkip = true;
    const d = makeDriver(sim);
    cleanup.push(() => d.driver.stop());
    await d.driver.start();
    expect(d.driver.connection().connected).toBe(true);
  });
});

describe.each(STICKS)('zigbee: pairing, control and reports on a simulated $kind stick', (stick) => {
  it('interviews each simulated device into a light or sensor with its capabilities', async () => {
    const { driver, sink } = await started({}, stick.start);
    await pairAll(sim as AnySimulator, driver);
    const devices = await driver.listDevices();
    const by = (id: string) => devices.find((d) => d.protocolid === id);
    expect(by(PID.colourBulb)).toMatchObject({
      kind: 'dimmable',
      // Named by the device table's Philips entry, which also knows its gamut.
      name: 'Philips Hue colour light (gamut C) (LCA001)',
      capabilities: { ct: { min: 153, max: 500 }, xy: { gamut: expect.any(Array) } },
    });
    expect(by(PID.dimmableBulb)).toMatchObject({ kind: 'dimmable' });
    expect(by(PID.dimmableBulb)?.capabilities).toBeUndefined();
    expect(by(PID.plug)).toMatchObject({ kind: 'binary' });
    expect(by(PID.remote)).toMatchObject({
      kind: 'sensor',
      // The device table's IKEA entry: zigbee2mqtt's names for this remote.
      events: expect.arrayContaining(['toggle', 'brightness_up_click', 'brightness_down_release']),
    });
    expect(by(PID.motion)).toMatchObject({ kind: 'sensor', events: ['motion', 'no_motion'] });
    expect(by(PID.contact)).toMatchObject({ kind: 'sensor', events: ['open', 'closed', 'tamper'] });
    expect(by(PID.iasMotion)).toMatchObject({ kind: 'sensor', events: ['motion', 'no_motion', 'tamper'] });
    expect(by(PID.hueDimmer)).toMatchObject({
      kind: 'sensor',
      events: expect.arrayContaining(['on_press', 'off_hold', 'down_hold_release']),
    });
    expect(by(PID.remote)?.events).toEqual(
      expect.arrayContaining(['arrow_left_click', 'arrow_right_release']),
    );
    // A device is listed once described; its binding and reporting set-up may still be on the air then
    // (a loaded machine showed it), so these wait for the state rather than read it at once.
    await expect.poll(() => sink.reports.filter((r) => r.kind === 'devices').length).toBe(8);
    // Bound and reporting configured where the clusters are present.
    const bulb = sim?.coordinator.devices.get('colourBulb');
    await expect
      .poll(() => [...(bulb?.reporting ?? [])])
      .toEqual(expect.arrayContaining(['6:0', '8:0', '768:7']));
    await expect
      .poll(() => [...(sim?.coordinator.devices.get('remote')?.binds ?? [])].sort())
      .toEqual([5, 6, 8]);
  });

  it('switches, dims with a transition, and sets colour temperature and xy; reports come back as state', async () => {
    const { driver, sink } = await started({}, stick.start);
    await pairAll(sim as AnySimulator, driver, ['colourBulb', 'plug']);
    const bulb = sim?.coordinator.devices.get('colourBulb');
    let from = sink.reports.length;
    await driver.setState(PID.colourBulb, { on: true, bri: 128, transition: 1.5 });
    let r = await sink.waitFor((x) => x.kind === 'state' && x.protocolid === PID.colourBulb, from);
    expect(r).toMatchObject({ level: { on: true, bri: 128 } });
    const level = bulb?.received.filter((x) => x.cluster === Cluster.LEVEL).at(-1);
    expect(level?.frame.payload.toString('hex')).toBe('7f0f00'); // level 127, 15 tenths

    from = sink.reports.length;
    await driver.setState(PID.colourBulb, { on: true, bri: 200, ct: 370 });
    r = await sink.waitFor(
      (x) => x.kind === 'state' && x.protocolid === PID.colourBulb && (x.level as { ct?: number }).ct === 370,
      from,
    );
    expect(r).toMatchObject({ level: { ct: 370, colormode: 'ct' } });

    from = sink.reports.length;
    await driver.setState(PID.colourBulb, { on: true, bri: 200, xy: [0.3, 0.6] });
    r = await sink.waitFor(
      (x) =>
        x.kind === 'state' &&
        x.protocolid === PID.colourBulb &&
        (x.level as { colormode?: string }).colormode === 'xy',
      from,
    );
    expect(bulb?.attr(Cluster.COLOR, Attr.COLOR_X)).toBe(Math.round(0.3 * 65536));

    from = sink.reports.length;
    await driver.setState(PID.plug, { on: true, bri: 90 });
    r = await sink.waitFor((x) => x.kind === 'state' && x.protocolid === PID.plug, from);
    expect(r).toMatchObject({ level: { on: true, bri: 255 } });
    expect(sim?.coordinator.devices.get('plug')?.received.every((x) => x.cluster !== Cluster.LEVEL)).toBe(
      true,
    );

    from = sink.reports.length;
    await driver.setState(PID.colourBulb, { on: false, bri: 0 });
    r = await sink.waitFor((x) => x.kind === 'state' && x.protocolid === PID.colourBulb, from);
    expect(r).toMatchObject({ level: { on: false, bri: 0 } });
    expect(await driver.readState(PID.colourBulb)).toMatchObject({ on: false, bri: 0, xy: [0.3, 0.6] });
  });

  it('turns remote buttons and motion into sensor events', async () => {
    const { driver, sink } = await started({}, stick.start);
    await pairAll(sim as AnySimulator, driver, ['remote', 'motion']);
    const s = sim as AnySimulator;
    const events: string[] = [];
    for (const b of ['on', 'off', 'up', 'down'] as const) {
      const from = sink.reports.length;
      expect(s.press(b)).toBe(true);
      const r = await sink.waitFor((x) => x.kind === 'sensor', from);
      events.push((r as { event: string }).event);
      expect(r).toMatchObject({ protocolid: PID.remote });
    }
    expect(events).toEqual(['on', 'off', 'brightness_up_click', 'brightness_down_click']);
    const from = sink.reports.length;
    s.motion(true);
    await expect(sink.waitFor((x) => x.kind === 'sensor', from)).resolves.toEqual({
      kind: 'sensor',
      protocolid: PID.motion,
      event: 'motion',
    });
  });

  it("turns the IKEA remote's arrows and the Hue dimmer's manufacturer-specific buttons into sensor events", async () => {
    const { driver, sink } = await started({}, stick.start);
    const s = sim as AnySimulator;
    await pairAll(s, driver, ['remote', 'hueDimmer']);
    expect([...(s.coordinator.devices.get('hueDimmer')?.binds ?? [])]).toContain(0xfc00);
    const seen: Array<[string, string]> = [];
    const next = async (fire: () => boolean) => {
      const from = sink.reports.length;
      expect(fire()).toBe(true);
      const r = (await sink.waitFor((x) => x.kind === 'sensor', from)) as {
        protocolid: string;
        event: string;
      };
      seen.push([r.protocolid, r.event]);
    };
    await next(() => s.arrow('left', 'click'));
    await next(() => s.arrow('right', 'click'));
    await next(() => s.arrow('left', 'hold'));
    await next(() => s.arrow('left', 'release'));
    await next(() => s.hueButton(1, 0));
    await next(() => s.hueButton(3, 1));
    await next(() => s.hueButton(3, 3));
    expect(seen).toEqual([
      [PID.remote, 'arrow_left_click'],
      [PID.remote, 'arrow_right_click'],
      [PID.remote, 'arrow_left_hold'],
      [PID.remote, 'arrow_left_release'],
      [PID.hueDimmer, 'on_press'],
      [PID.hueDimmer, 'down_hold'],
      [PID.hueDimmer, 'down_hold_release'],
    ]);
  });

  it('enrols IAS zone sensors (one asks, one waits for the response) and turns zone status changes into events', async () => {
    const { driver, sink, store } = await started({}, stick.start);
    const s = sim as AnySimulator;
    await pairAll(s, driver, ['contact', 'iasMotion']);
    for (const name of ['contact', 'iasMotion'] as const) {
      const d = s.coordinator.devices.get(name);
      expect(d?.attr(Cluster.IAS_ZONE, Attr.IAS_CIE_ADDRESS)).toBe(
        stick.kind === 'ezsp' ? NCP_IEEE : COORDINATOR_IEEE,
      );
    }
    // The contact asked for enrolment after the CIE address write; the answer reaches it asynchronously.
    // Up to 10 s: a loaded machine may take a while, and the loop ends as soon as the answer is in.
    for (let i = 0; i < 1000; i++) {
      if (s.coordinator.devices.get('contact')?.attr(Cluster.IAS_ZONE, Attr.IAS_ZONE_STATE) === 1) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const zoneIds = store.devices().flatMap((d) => (d.ias ? [d.ias.zoneId] : []));
    expect(new Set(zoneIds).size).toBe(2);
    expect(store.devices().find((d) => d.ieee === IEEE.contact)?.ias?.zoneType).toBe(0x0015);

    const events: Array<[string, string]> = [];
    const next = async (fire: () => boolean) => {
      const from = sink.reports.length;
      expect(fire()).toBe(true);
      const r = (await sink.waitFor((x) => x.kind === 'sensor', from)) as {
        protocolid: string;
        event: string;
      };
      events.push([r.protocolid, r.event]);
    };
    await next(() => s.zone('contact', true));
    await next(() => s.zone('contact', false));
    await next(() => s.zone('iasMotion', true));
    await next(() => s.zone('iasMotion', false));
    expect(events).toEqual([
      [PID.contact, 'open'],
      [PID.contact, 'closed'],
      [PID.iasMotion, 'motion'],
      [PID.iasMotion, 'no_motion'],
    ]);
    const from = sink.reports.length;
    expect(s.zone('contact', false, true)).toBe(true);
    await sink.waitFor((x) => x.kind === 'sensor' && (x as { event: string }).event === 'tamper', from);
  });

  it('an IAS sensor that was never enrolled stays silent', async () => {
    const s = await stick.start();
    sim = s;
    expect(s.coordinator.devices.get('contact')?.zone(true)).toBeNull();
  });
});

describe('zigbee: removing devices (Z-Stack: the leave request as MT)', () => {
  it('removes a device: a leave request, then forgotten; an unreachable one is forgotten too', async () => {
    const left: string[] = [];
    sim = await startZnpSimulator();
    const d = makeDriver(sim, undefined, { left: (p) => left.push(p) });
    cleanup.push(() => d.driver.stop());
    await startConnected(d);
    await pairAll(sim, d.driver, ['plug', 'dimmableBulb']);
    await expect(d.driver.removeDevice(IEEE.plug)).resolves.toEqual({ confirmed: true });
    const leave = sim.coordinator.log.find((m) => m.name === 'zdoMgmtLeaveReq');
    expect(leave?.fields).toMatchObject({ deviceIeee: IEEE.plug, flags: 0 });
    expect(sim.coordinator.devices.get('plug')?.joined).toBe(false);
    expect(d.store.devices().map((x) => x.ieee)).toEqual([IEEE.dimmableBulb]);
    expect(left).toContain(PID.plug);
    await expect(d.driver.setState(PID.plug, { on: true, bri: 255 })).rejects.toThrow(
      /unknown Zigbee device/,
    );
    await expect(d.driver.removeDevice(IEEE.plug)).resolves.toBeNull();

    sim.coordinator.faults.noRoute.add('dimmableBulb');
    sim.coordinator.faults.noRouteSticky = true;
    await expect(d.driver.removeDevice(IEEE.dimmableBulb)).resolves.toEqual({ confirmed: false });
    expect(d.store.devices()).toEqual([]);
  });

  it('forgets a device that leaves the network', async () => {
    const left: string[] = [];
    sim = await startZnpSimulator();
    const d = makeDriver(sim, undefined, { left: (p) => left.push(p) });
    cleanup.push(() => d.driver.stop());
    await startConnected(d);
    await pairAll(sim, d.driver, ['plug']);
    sim.coordinator.leave('plug');
    for (let i = 0; i < 1000 && left.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(left).toEqual([PID.plug]);
    expect(d.store.devices().map((x) => x.ieee)).not.toContain(IEEE.plug);
  });
});
