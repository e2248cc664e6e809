/**
 * A simulated Silicon Labs (EmberZNet) stick behind a `socat` PTY pair, with the same small network as
 * the simulated Z-Stack stick. The driver opens `path` like a real stick; the test drives devices and
 * faults through the returned handle.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DeviceControls, deviceControls } from '../znp-coordinator/index.ts';
import { type PtyPair, startPtyPair } from '../znp-coordinator/pty.ts';
import { SimNcp } from './ncp.ts';

export { NCP_IEEE, SimNcp } from './ncp.ts';

export interface EzspSimulator extends DeviceControls {
  readonly kind: 'ezsp';
  readonly path: string;
  readonly coordinator: SimNcp;
  unplug(): Promise<void>;
  replug(): Promise<void>;
  stop(): Promise<void>;
}

export async function startEzspSimulator(
  opts: {
    blank?: boolean;
    autoJoin?: boolean;
    protocol?: number;
    name?: string;
    /** The custom EUI64 token already written (a stick that was given an address before). */
    customEui64?: string;
    /** false: firmware without NVM3 tokens (no rewritable restored EUI64); EmberZNet 7.x has them. */
    nvm3?: boolean;
  } = {},
): Promise<EzspSimulator> {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-ezsp-'));
  const coordinator = new SimNcp({
    blank: opts.blank ?? true,
    ...(opts.protocol ? { protocol: opts.protocol } : {}),
    ...(opts.customEui64 ? { customEui64: opts.customEui64 } : {}),
    ...(opts.nvm3 === false ? { nvm3: false } : {}),
  });
  coordinator.autoJoin = opts.autoJoin ?? false;
  let pty: PtyPair | null = await startPtyPair(dir, opts.name);
  await coordinator.attach(pty.simPath);
  return {
    kind: 'ezsp',
    path: pty.stickPath,
    coordinator,
    ...deviceControls(coordinator),
    async unplug() {
      await coordinator.detach();
      await pty?.stop();
      pty = null;
    },
    async replug() {
      if (pty) return;
      pty = await startPtyPair(dir, opts.name);
      coordinator.powerCycle();
      await coordinator.attach(pty.simPath);
    },
    async stop() {
      await coordinator.detach();
      await pty?.stop();
      pty = null;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
