/**
 * The simulator's fault modes against the driver: channel-access failures, no route, garbage on the line,
 * late and missing reports, a coordinator reset, and unplugging the stick.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Cluster } from '../../drivers/zigbee/zcl/clusters.ts';
import { startZnpSimulator, type ZnpSimulator } from '../../scripts/simulators/znp-coordinator/index.ts';
import { makeDriver, PID, pairAll } from './sim-helpers.ts';

let sim: ZnpSimulator | null = null;
let stopDriver: (() => Promise<void>) | null = null;
afterEach(async () => {
  await stopDriver?.();
  await sim?.stop();
  sim = null;
});

async function paired(names: string[] = ['dimmableBulb']) {
  sim = await startZnpSimulator();
  const d = makeDriver(sim);
  stopDriver = () => d.driver.stop();
  await d.driver.start();
  await pairAll(sim, d.driver, names);
  return { ...d, sim };
}

const levelCommands = (s: ZnpSimulator) =>
  s.coordinator.devices
    .get('dimmableBulb')
    ?.received.filter((x) => x.cluster === Cluster.LEVEL && x.frame.kind === 1).length ?? 0;

describe('zigbee: recovery', () => {
  it('retries after channel-access failures and then delivers', async () => {
    const { driver, sim: s } = await paired();
    s.coordinator.faults.channelAccessFailures = 2;
    const before = s.coordinator.log.length;
    await driver.setState(PID.dimmableBulb, { on: true, bri: 100 });
    expect(levelCommands(s)).toBe(1);
    const sent = s.coordinator.log.slice(before).filter((m) => m.name === 'afDataRequest');
    expect(sent.map((m) => m.fields.clusterId)).toEqual([Cluster.LEVEL, Cluster.LEVEL, Cluster.LEVEL]);
  });

  it('gives up after four attempts with a clear error', async () => {
    const { driver, sim: s } = await paired();
    s.coordinator.faults.channelAccessFailures = 10;
    await expect(driver.setState(PID.dimmableBulb, { on: true, bri: 100 })).rejects.toThrow(/status 0xe1/);
  });

  it('discovers a route and re-resolves the address on no-route, then delivers', async () => {
    const { driver, sim: s } = await paired();
    s.coordinator.faults.noRoute.add('dimmableBulb');
    await driver.setState(PID.dimmableBulb, { on: true, bri: 50 });
    expect(levelCommands(s)).toBe(1);
    const names = s.coordinator.log.map((m) => m.name);
    expect(names).toContain('zdoExtRouteDisc');
    expect(names).toContain('zdoNwkAddrReq');
  });

  it('follows a device that took a new network address', async () => {
    const { driver, sim: s, sink } = await paired();
    s.coordinator.readdress('dimmableBulb', 0x2b2b);
    await new Promise((r) => setTimeout(r, 50));
    const from = sink.reports.length;
    await driver.setState(PID.dimmableBulb, { on: true, bri: 255 });
    await sink.waitFor((x) => x.kind === 'state' && x.protocolid === PID.dimmableBulb, from);
    expect(s.coordinator.log.findLast((m) => m.name === 'afDataRequest')?.fields.dstAddr).toBe(0x2b2b);
  });

  it('survives garbage bytes and half frames on the line', async () => {
    const { driver, sim: s, sink } = await paired();
    s.coordinator.writeRaw(Buffer.from('00fe03ffffaa13fe0a', 'hex'));
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

  it('restarts the network and registers its endpoint again after a coordinator reset', async () => {
    const { driver, sim: s, sink } = await paired();
    s.coordinator.reset();
    for (let i = 0; i < 1000 && !s.coordinator.endpoints.has(1); i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(s.coordinator.endpoints.has(1)).toBe(true);
    expect(s.coordinator.state).toBe(9);
    const from = sink.reports.length;
    await driver.setState(PID.dimmableBulb, { on: true, bri: 33 });
    await sink.waitFor((x) => x.kind === 'state' && x.protocolid === PID.dimmableBulb, from);
  });

  it('notices an unplugged stick through its liveness ping and resumes the same network when it is back', async () => {
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
