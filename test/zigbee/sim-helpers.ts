/** Starting the simulated stick and a driver against it, and pairing the simulated devices. */
import pino from 'pino';
import { memoryStateStore } from '../../drivers/zigbee/device.ts';
import {
  createZigbeeDriverFactory,
  type ZigbeeDriver,
  type ZigbeeObserver,
} from '../../drivers/zigbee/driver.ts';
import { type EzspSimulator, startEzspSimulator } from '../../scripts/simulators/ezsp-ncp/index.ts';
import {
  type SimDeviceName,
  startZnpSimulator,
  type ZnpSimulator,
} from '../../scripts/simulators/znp-coordinator/index.ts';
import { RecordingSink } from '../drivers/conformance.ts';

/** Fast timings: the simulator answers in milliseconds. */
export const fastOptions = (path: string) => ({
  path,
  timings: {
    pingMs: 200,
    bootloaderMs: 100,
    startupMs: 3000,
    retryBackoffMs: 50,
    routeDiscoveryMs: 20,
    confirmMs: 1000,
    commandMs: 2000,
    ash: { ackMs: 400, minAckMs: 100, resetMs: 1000 },
  },
  reconnectMs: 100,
  livenessMs: 150,
  coalesceMs: 20,
});

export const IEEE = {
  colourBulb: '0x0017880100000001',
  dimmableBulb: '0x000b57fffe000002',
  plug: '0x000d6f0000000003',
  remote: '0x000b57fffe000004',
  motion: '0x0017880100000005',
  contact: '0x00124b0000000006',
  iasMotion: '0x00124b0000000007',
  hueDimmer: '0x0017880100000008',
} as const;
export const PID = {
  colourBulb: `${IEEE.colourBulb}/11`,
  dimmableBulb: `${IEEE.dimmableBulb}/1`,
  plug: `${IEEE.plug}/1`,
  remote: `${IEEE.remote}/1`,
  motion: `${IEEE.motion}/2`,
  contact: `${IEEE.contact}/1`,
  iasMotion: `${IEEE.iasMotion}/1`,
  hueDimmer: `${IEEE.hueDimmer}/1`,
} as const;

/** Either simulated stick: what the shared tests use of it. */
export type AnySimulator = ZnpSimulator | EzspSimulator;

/** Both kinds of simulated stick, for tests that must pass on either (`describe.each`). */
export const STICKS: Array<{
  kind: 'znp' | 'ezsp';
  start: (opts?: { blank?: boolean; autoJoin?: boolean }) => Promise<AnySimulator>;
}> = [
  { kind: 'znp', start: (o) => startZnpSimulator(o) },
  { kind: 'ezsp', start: (o) => startEzspSimulator(o) },
];

export function makeDriver(
  sim: { path: string },
  store = memoryStateStore(),
  observer?: ZigbeeObserver,
  extra: Record<string, unknown> = {},
) {
  const sink = new RecordingSink();
  const abort = new AbortController();
  const factory = createZigbeeDriverFactory(observer ? { store, observer } : { store });
  const driver = factory({
    id: 'zb',
    options: { ...fastOptions(sim.path), ...extra },
    sink,
    log: pino({ level: 'silent' }),
    signal: abort.signal,
  }) as ZigbeeDriver;
  return { driver, sink, store, abort };
}

/**
 * Starts the driver and waits until it is connected. `start()` does not throw when the stick does not answer
 * in time: it reports the link down and tries again (docs/zigbee.md), and on a loaded machine the first
 * attempt may be one of those. Tests that then talk to the stick wait for the connection, not for `start()`.
 */
export async function startConnected(d: { driver: ZigbeeDriver; sink: RecordingSink }): Promise<void> {
  const from = d.sink.reports.length;
  await d.driver.start();
  if (d.driver.connection().connected) return;
  await d.sink.waitFor((r) => r.kind === 'connection' && r.status.connected, from);
}

/** Opens joining, lets every simulated device join and waits until each is interviewed. */
export async function pairAll(
  sim: { coordinator: { join(name: SimDeviceName): boolean } },
  driver: ZigbeeDriver,
  names = Object.keys(IEEE),
): Promise<void> {
  await driver.permitJoin(60);
  for (const n of names) sim.coordinator.join(n as SimDeviceName);
  for (let i = 0; i < 300; i++) {
    const ids = (await driver.listDevices()).map((d) => d.protocolid);
    if (names.every((n) => ids.includes(PID[n as keyof typeof PID]))) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('devices did not finish their interview');
}
