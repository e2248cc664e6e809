/**
 * A simulated Z-Stack coordinator stick behind a `socat` PTY pair, with its small network. The driver
 * opens `path` like a real stick; the test drives devices and faults through the returned handle.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Attr, Cluster, LevelCmd, OnOffCmd } from '../../../drivers/zigbee/zcl/clusters.ts';
import { DataType } from '../../../drivers/zigbee/zcl/types.ts';
import { SimCoordinator } from './coordinator.ts';
import type { Outgoing, SimDevice, SimDeviceName } from './devices.ts';
import { type PtyPair, startPtyPair } from './pty.ts';

export { COORDINATOR_IEEE, SimCoordinator } from './coordinator.ts';
export type { SimDeviceName } from './devices.ts';

export type RemoteButton = 'on' | 'off' | 'up' | 'down';

export interface ZnpSimulator {
  /** The serial path the driver opens. */
  readonly path: string;
  readonly coordinator: SimCoordinator;
  /** The remote sends one button's command (to the coordinator, once bound). */
  press(button: RemoteButton): boolean;
  /** The motion sensor reports occupancy. */
  motion(occupied: boolean): boolean;
  /** An IAS zone device (contact, iasMotion) notifies a status change; false when it stays silent (not enrolled). */
  zone(name: SimDeviceName, alarm: boolean, tamper?: boolean): boolean;
  /** The IKEA remote's arrow buttons (IKEA's manufacturer-specific Scenes commands). */
  arrow(direction: 'left' | 'right', action: 'click' | 'hold' | 'release'): boolean;
  /** The Hue dimmer's button event on its manufacturer cluster 0xFC00 (button 1..4, type 0..3). */
  hueButton(button: number, type: number): boolean;
  /** socat dies: the PTY closes under the driver. */
  unplug(): Promise<void>;
  /** A new PTY pair on the same paths, the same stick (NV, network, devices) on it. */
  replug(): Promise<void>;
  stop(): Promise<void>;
}

/** The part of a simulated stick the device controls drive (either kind of stick has it). */
export interface SimNetwork {
  readonly devices: Map<SimDeviceName, SimDevice>;
  fromDevice(name: SimDeviceName, o: (d: SimDevice) => Outgoing, needsBind?: boolean): boolean;
}

/** Buttons, motion, zones: what a test or the demo makes the simulated devices do. */
export type DeviceControls = Pick<ZnpSimulator, 'press' | 'motion' | 'zone' | 'arrow' | 'hueButton'>;

export function deviceControls(coordinator: SimNetwork): DeviceControls {
  const commands: Record<RemoteButton, [number, number, Buffer]> = {
    on: [Cluster.ON_OFF, OnOffCmd.ON, Buffer.alloc(0)],
    off: [Cluster.ON_OFF, OnOffCmd.OFF, Buffer.alloc(0)],
    up: [Cluster.LEVEL, LevelCmd.STEP_ON_OFF, Buffer.from([0, 43, 5, 0])],
    down: [Cluster.LEVEL, LevelCmd.STEP, Buffer.from([1, 43, 5, 0])],
  };
  return {
    press(button) {
      const [cluster, command, payload] = commands[button];
      return coordinator.fromDevice('remote', (d) => d.command(cluster, command, payload));
    },
    motion(occupied) {
      return coordinator.fromDevice(
        'motion',
        (d) => d.change(Cluster.OCCUPANCY, Attr.OCCUPANCY, DataType.BITMAP8, occupied ? 1 : 0),
        false,
      );
    },
    zone(name, alarm, tamper = false) {
      const out = coordinator.devices.get(name)?.zone(alarm, tamper);
      return !!out && coordinator.fromDevice(name, () => out, false);
    },
    arrow(direction, action) {
      const left = direction === 'left';
      const [command, value] =
        action === 'click'
          ? [0x07, left ? 257 : 256]
          : action === 'hold'
            ? [0x08, left ? 3329 : 3328]
            : [0x09, 1200];
      const p = Buffer.alloc(4);
      p.writeUInt16LE(value, 0);
      p.writeUInt16LE(13, 2);
      return coordinator.fromDevice('remote', (d) =>
        d.vendorCommand(Cluster.SCENES, command, p, 0x117c, false),
      );
    },
    hueButton(button, type) {
      const p = Buffer.from([button, 0, 0x30, 0, type, 0x21, 0, 0]);
      return coordinator.fromDevice('hueDimmer', (d) => d.vendorCommand(0xfc00, 0x00, p, 0x100b, true));
    },
  };
}

export async function startZnpSimulator(
  opts: { blank?: boolean; autoJoin?: boolean } = {},
): Promise<ZnpSimulator> {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-znp-'));
  const coordinator = new SimCoordinator({ blank: opts.blank ?? true });
  coordinator.autoJoin = opts.autoJoin ?? false;
  let pty: PtyPair | null = await startPtyPair(dir);
  await coordinator.attach(pty.simPath);
  const path = pty.stickPath;
  return {
    path,
    coordinator,
    ...deviceControls(coordinator),
    async unplug() {
      await coordinator.detach();
      await pty?.stop();
      pty = null;
    },
    async replug() {
      if (pty) return;
      pty = await startPtyPair(dir);
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

export type { SimDeviceName as DeviceName };
export const SIM_DEVICES: SimDeviceName[] = [
  'colourBulb',
  'dimmableBulb',
  'plug',
  'remote',
  'motion',
  'contact',
  'iasMotion',
  'hueDimmer',
];
