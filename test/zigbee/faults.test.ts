/**
 * The simulators' fault modes against the driver, on each kind of stick: delivery refused for lack of
 * room (Z-Stack: MAC channel-access failure; EmberZNet: message limit reached), no route, garbage on the
 * line, late and missing reports, a stick reset, and unplugging the stick.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Cluster } from '../../drivers/zigbee/zcl/clusters.ts';
import { type AnySimulator, makeDriver, PID, pairAll, STICKS } from './sim-helpers.ts';

let sim: AnySimulator | null = null;
let stopDriver: (() => Promise<void>) | null = null;
afterEach(async () => {
  await stopDriver?.();
  await sim?.stop();
  sim = null;
});

const levelCommands = (s: AnySimulator) =>
  s.coordinator.devices
    .get('dimmableBulb')
    ?.received.filter((x) => x.cluster === Cluster.LEVEL && x.frame.kind === 1).length ?? 0;

/** What each stick calls a unicast on the wire, and what it says when it has no room for one. */
const WIRE = {
  znp: { unicast: 'afDataRequest', noRoom: /status 0xe1/, lookUp: ['zdoExtRouteDisc', 'zdoNwkAddrReq'] },
  ezsp: { unicast: 'sendUnicast', noRoom: /status 0x72/, lookUp: ['sendBroadcast'] },
} as const;

/** Unicasts the stick was asked for since `before` in its log: cluster and destination. */
function unicasts(s: AnySimulator, before: number): Array<{ cluster: number; dst: number }> {
  if (!('kind' in s))
    return s.coordinator.log
      .slice(before)
      .filter((m) => m.name === 'afDataRequest')
      .map((m) => ({ cluster: m.fields.clusterId as number, dst: m.fields.dstAddr as number }));
  return s.coordinator.log
    .slice(before)
    .filter((m) => m.name === 'sendUnicast')
    .map((m) => ({ cluster: m.cluster ?? -1, dst: m.destination ?? -1 }));
}

describe.each(STICKS)('zigbee: recovery on a simulated $kind stick', (stick) => {
  const wire = WIRE[stick.kind];

  async function paired(names: string[] = ['dimmableBulb']) {
    const s = await stick.start({ blank: true });
    sim = s;
    const d = makeDriver(s);
    stopDriver = () => d.driver.stop();
    await d.driver.start();
    await pairAll(s, d.driver, names);
    return { ...d, sim: s };
  }

  it('retries when the stick has no room for a frame, then delivers', async () => {
    const { driver, sim: s } = await paired();
    s.coordinator.faults.channelAccessFailures = 2;
    const before = s.coordinator.log.length;
    await driver.setState(PID.dimmableBulb, { on: true, bri: 100 });
    expect(levelCommands(s)).toBe(1);
    expect(unicasts(s, before).map((m) => m.cluster)).toEqual([Cluster.LEVEL, Cluster.LEVEL, Cluster.LEVEL]);
  });

  it('gives up after four attempts with a clear error', async () => {
    const { driver, sim: s } = await paired();
    s.coordinator.faults.channelAccessFailures = 10;
    await expect(driver.setState(PID.dimmableBulb, { on: true, bri: 100 })).rejects.toThrow(wire.noRoom);
  });

  it('looks the device up again when there is no route to it, then delivers', async () => {
    const { driver, sim: s } = await paired();
    s.coordinator.faults.noRoute.add('dimmableBulb');
    await driver.setState(PID.dimmableBulb, { on: true, bri: 50 });
    expect(levelCommands(s)).toBe(1);
    const names = s.coordinator.log.map((m) => m.name);
    for (const n of wire.lookUp) expect(names).toContain(n);
  });

  it('follows a device that took a new network address', async () => {
    const { driver, sim: s, sink } = await paired();
    s.coordinator.readdress('dimmableBulb', 0x2b2b);
    await new Promise((r) => setTimeout(r, 50));
    const from = sink.reports.length;
    const before = s.coordinator.log.length;
    await driver.setState(PID.dimmableBulb, { on: true, bri: 255 });
    await sink.waitFor((x) => x.kind === 'state' && x.protocolid === PID.dimmableBulb, from);
    expect(unicasts(s, before).at(-1)?.dst).toBe(0x2b2b);
  });

  it('survives garbage bytes and half frames on the line', async () => {
    const { driver, sim: s, sink } = await paired();
    // Z-Stack: a lone start-of-frame and a frame cut short; ASH: bytes ending in a flag (a bad frame),
    // then half a frame that the next flag ends.
    s.coordinator.writeRaw(Buffer.from(stick.kind === 'znp' ? '00fe03ffffaa13fe0a' : '0102037e4142', 'hex'));
    const from = sink.reports.length;
    await driver.setState(PID.dimmableBulb, { on: true, bri: 10 });
    await sink.waitFor((x) => x.kind === 'state' && x.protocolid === PID.dimmableBulb, from);
    expect(driver.connection().connected).toBe(true);
  });

  it('late reports still arrive; with reports missing, readState answers', async () => {
    const { driver, sim: s, sink } = await paired();
    s.coordinator.faults.reportDelayMs = 300;
    let from = sink.reports.length;
    await driver.setState(PID.dimmableBulb, { on: true, bri: 60 });
    expect(sink.reports.slice(from).some((r) => r.kind === 'state')).toBe(false);
    await expect(sink.waitFor((x) => x.kind === 'state', from)).resolves.toMatchObject({
      level: { on: true },
    });
    s.coordinator.faults.reportDelayMs = 0;
    s.coordinator.faults.dropReports = true;
    from = sink.reports.length;
    await driver.setState(PID.dimmableBulb, { on: true, bri: 180 });
    await new Promise((r) => setTimeout(r, 100));
    expect(sink.reports.slice(from).some((r) => r.kind === 'state')).toBe(false);
    const read = await driver.readState(PID.dimmableBulb);
    expect(read?.on).toBe(true);
    expect(Math.abs((read?.bri ?? 0) - 180)).toBeLessThanOrEqual(1);
  });

  it('restarts the network and registers its endpoint again after the stick reset itself', async () => {
    const { driver, sim: s, sink } = await paired();
    s.coordinator.reset();
    const up = () =>
      s.coordinator.endpoints.has(1) && ('kind' in s ? s.coordinator.networkUp : s.coordinator.state === 9);
    for (let i = 0; i < 1000 && !up(); i++) await new Promise((r) => setTimeout(r, 10));
    expect(up()).toBe(true);
    const from = sink.reports.length;
    await driver.setState(PID.dimmableBulb, { on: true, bri: 33 });
    await sink.waitFor((x) => x.kind === 'state' && x.protocolid === PID.dimmableBulb, from);
  });

  it('notices an unplugged stick through its liveness check and resumes the same network when it is back', async () => {
    const { driver, sim: s, sink, store } = await paired();
    const net = store.network();
    let from = sink.reports.length;
    await s.unplug();
    await sink.waitFor((x) => x.kind === 'connection' && !x.status.connected, from);
    await expect(driver.setState(PID.dimmableBulb, { on: true, bri: 10 })).rejects.toThrow(/not connected/);
    from = sink.reports.length;
    await s.replug();
    await sink.waitFor((x) => x.kind === 'connection' && x.status.connected, from);
    // The same network; only the frame counter read at the new start has moved on.
    const { frameCounter, ...same } = store.network() ?? { frameCounter: -1 };
    const { frameCounter: before, ...was } = net ?? { frameCounter: -1 };
    expect(same).toEqual(was);
    expect(frameCounter).toBeGreaterThan(before ?? 0);
    from = sink.reports.length;
    await driver.setState(PID.dimmableBulb, { on: true, bri: 77 });
    await sink.waitFor((x) => x.kind === 'state' && x.protocolid === PID.dimmableBulb, from);
  });
});
