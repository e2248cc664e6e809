/**
 * `npm run bench:zigbee`: through each simulated stick (Z-Stack and Silicon Labs EZSP) on a socat PTY pair, the latency from a
 * driver command to the frame reaching the simulated bulb (serial write, UNPI parse, AF confirm), and from
 * a remote's button press to the bound bulb's command (remote frame → driver → sensor event → command).
 * Figures are printed; nothing is asserted.
 */
import pino from 'pino';
import type { DriverSink } from '../../drivers/lighting/index.ts';
import { memoryStateStore } from '../../drivers/zigbee/device.ts';
import { createZigbeeDriverFactory, type ZigbeeDriver } from '../../drivers/zigbee/driver.ts';
import { startEzspSimulator } from '../simulators/ezsp-ncp/index.ts';
import { startZnpSimulator } from '../simulators/znp-coordinator/index.ts';

const N = Number(process.env.BENCH_ZIGBEE_N ?? 300);
const BULB = '0x0017880100000001/11';
const REMOTE = '0x000b57fffe000004/1';
const DIMMER = '0x000b57fffe000002/1';

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const show = (name: string, xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  console.log(
    `${name}: n=${s.length} p50 ${pct(s, 50).toFixed(2)} ms  p99 ${pct(s, 99).toFixed(2)} ms  max ${(s.at(-1) ?? 0).toFixed(2)} ms`,
  );
};

async function run(kind: 'znp' | 'ezsp'): Promise<void> {
  const sim =
    kind === 'znp' ? await startZnpSimulator({ blank: true }) : await startEzspSimulator({ blank: true });
  /** Frames handed to the stick (AF data requests on Z-Stack, unicasts and multicasts on EZSP). */
  const sent = () =>
    (sim.coordinator.log as Array<{ name: string }>).filter((m) =>
      /^afDataRequest|^send(Unicast|Multicast)$/.test(m.name),
    ).length;
  let onSensor: (protocolid: string, event: string) => void = () => {};
  const sink: DriverSink = {
    reportState() {},
    reportConnection() {},
    reportDevices() {},
    reportSensorEvent: (p, e) => onSensor(p, e),
  };
  const store = memoryStateStore();
  const driver = createZigbeeDriverFactory({ store })({
    id: 'bench',
    options: { path: sim.path, livenessMs: 60_000 },
    sink,
    log: pino({ level: 'silent' }),
    signal: new AbortController().signal,
  }) as ZigbeeDriver;
  await driver.start();
  await driver.permitJoin(120);
  sim.coordinator.join('colourBulb');
  sim.coordinator.join('remote');
  sim.coordinator.join('dimmableBulb');
  while ((await driver.listDevices()).length < 3) await new Promise((r) => setTimeout(r, 20));

  let arrived: ((t: bigint) => void) | null = null;
  sim.coordinator.onDeviceFrame((d) => {
    if (d.name === 'colourBulb') arrived?.(process.hrtime.bigint());
  });
  const nextFrame = () => new Promise<bigint>((resolve) => (arrived = resolve));

  const toWire: number[] = [];
  for (let i = 0; i < N; i++) {
    const got = nextFrame();
    const t0 = process.hrtime.bigint();
    await driver.setState(BULB, { on: true, bri: 1 + (i % 254) });
    toWire.push(Number((await got) - t0) / 1e6);
  }

  // A Hearth action bound to the remote: its button switches the bulb.
  onSensor = (p, e) => {
    if (p === REMOTE) driver.setState(BULB, { on: e === 'on', bri: e === 'on' ? 255 : 0 }).catch(() => {});
  };
  const press: number[] = [];
  for (let i = 0; i < N; i++) {
    const got = nextFrame();
    const t0 = process.hrtime.bigint();
    sim.press(i % 2 ? 'on' : 'off');
    press.push(Number((await got) - t0) / 1e6);
  }

  // A group of both bulbs: until each has its frame, as one groupcast and as one unicast per bulb.
  onSensor = () => {};
  let both: { left: Set<string>; done: (t: bigint) => void } | null = null;
  sim.coordinator.onDeviceFrame((d) => {
    if (!both?.left.delete(d.name)) return;
    if (both.left.size === 0) both.done(process.hrtime.bigint());
  });
  const bothFrames = () =>
    new Promise<bigint>((done) => (both = { left: new Set(['colourBulb', 'dimmableBulb']), done }));
  const members = [BULB, DIMMER].map((protocolid) => ({ protocolid, light: { type: 'dimmable' as const } }));
  await driver.setGroupState({ id: 'bench', members }, { on: true, bri: 200 }); // joins the Zigbee group
  const groupcast: number[] = [];
  const unicast: number[] = [];
  const framesBefore = sent();
  for (let i = 0; i < N; i++) {
    const cmd = { on: i % 2 === 0, bri: i % 2 === 0 ? 200 : 0 };
    let got = bothFrames();
    let t0 = process.hrtime.bigint();
    await driver.setGroupState({ id: 'bench', members }, cmd);
    groupcast.push(Number((await got) - t0) / 1e6);
    got = bothFrames();
    t0 = process.hrtime.bigint();
    for (const m of members) await driver.setState(m.protocolid, cmd);
    unicast.push(Number((await got) - t0) / 1e6);
  }
  const frames = sent() - framesBefore;

  console.log(
    `zigbee through the simulated ${kind === 'znp' ? 'Z-Stack coordinator' : 'Silicon Labs (EZSP) stick'} on a socat PTY pair (${N} each)`,
  );
  show('command -> frame at the bulb', toWire);
  show('remote press -> bound bulb command', press);
  show('group of 2 bulbs, one groupcast -> both have it', groupcast);
  show('group of 2 bulbs, one unicast each -> both have it', unicast);
  console.log(`frames to the stick for those: ${frames} (${N} groupcasts + ${2 * N} unicasts)`);
  await driver.stop();
  await sim.stop();
}

for (const kind of ['znp', 'ezsp'] as const) await run(kind);
