/**
 * The one interface every lighting driver implements (Hue, Zigbee, MQTT, the virtual driver, test drivers),
 * shared by the drivers and the plugins that use them (a driver never imports a plugin).
 * The plugin owns the truth: drivers are treated as eventually consistent (docs/lighting.md#desired-and-reported-state). They take
 * commands, and report what devices actually did through the sink they are given.
 */
import type { Logger } from 'pino';
import type { LightCapabilities, LightColour } from './capabilities.ts';

/** A light level on the site API's scale. spec: bri 0..255, on is false exactly when bri is 0. */
export interface LightLevel {
  on: boolean;
  bri: number;
}

/**
 * A light's whole state: its level and, for lights that have them, colour temperature and colour. A report
 * may carry only what the device said; a command carries only what should change besides the level.
 */
export type LightState = LightLevel & LightColour;

/** A command: the state to reach and, optionally, how long the change should take. */
export interface LightCommand extends LightState {
  /** Seconds to fade over (zigbee2mqtt and Home Assistant `transition`); absent: the device's default. */
  transition?: number;
}

export type DeviceKind = 'dimmable' | 'binary' | 'sensor';

/** What the plugin knows about the light a command is for: its `type` says whether it can dim at all. */
export interface LightTarget {
  type: 'dimmable' | 'binary';
  /** What the light can show besides its level (from the device, or set on the light). */
  capabilities?: LightCapabilities;
}

/** A device as a driver knows it. `protocolid` is the driver's own address (topic, IEEE/ep, Hue id...). */
export interface DeviceInfo {
  protocolid: string;
  kind: DeviceKind;
  name?: string;
  /** Sensor events the device can emit (`1`, `2`, `long`, `motion`...). */
  events?: string[];
  /** Colour temperature and colour the device says it can show. */
  capabilities?: LightCapabilities;
  /**
   * The device is a plug (a switched socket or plug-in relay: whatever is plugged into it is switched), not
   * a lamp, as far as the device says so (docs/lighting.md#plugs). Absent: a lamp, or the driver cannot tell.
   */
  plug?: boolean;
  /** Readings the device reports (a sensor's temperature, battery...). */
  readings?: ReadingName[];
  /**
   * The longest a healthy device of this kind stays silent (its reporting heartbeat with margin): silent
   * for longer, it is shown as such. Absent: the driver cannot tell (a remote that only talks when pressed).
   */
  checkInSeconds?: number;
}

/**
 * What a sensor measures besides its events, in zigbee2mqtt's names and units: temperature °C, humidity %,
 * pressure hPa, illuminance lux, battery %, voltage mV, linkquality 0..255 (docs/lighting.md#sensor-readings).
 */
export interface SensorReadings {
  temperature?: number;
  humidity?: number;
  pressure?: number;
  illuminance?: number;
  battery?: number;
  voltage?: number;
  linkquality?: number;
}

export type ReadingName = keyof SensorReadings;

export const READING_NAMES: readonly ReadingName[] = [
  'temperature',
  'humidity',
  'pressure',
  'illuminance',
  'battery',
  'voltage',
  'linkquality',
];

export interface ConnectionStatus {
  connected: boolean;
  /** ISO time of the last change of `connected`. */
  since: string;
  /** Driver-specific, never secret (no keys, no passwords). */
  detail?: Record<string, unknown>;
}

/** What a driver calls to tell the plugin what happened. Safe to call at any time, from any callback. */
export interface DriverSink {
  /** A device reported its level (after a command or on its own). */
  reportState(protocolid: string, level: LightState): void;
  /** A sensor (button, motion, contact...) emitted a named event. */
  reportSensorEvent(protocolid: string, event: string): void;
  /**
   * A sensor reported readings (only those it just reported; each replaces the last). Optional: only
   * drivers whose devices measure something call it.
   */
  reportReadings?(protocolid: string, readings: SensorReadings): void;
  /** The link to the bridge/stick/broker went up or down. */
  reportConnection(status: Omit<ConnectionStatus, 'since'>): void;
  /** New devices showed up (pairing, a bridge listing). */
  reportDevices(devices: DeviceInfo[]): void;
  /**
   * The scenes the bridge or device keeps itself, the whole list each time (docs/lighting.md#device-scenes).
   * Optional: only drivers whose link has scenes call it.
   */
  reportScenes?(scenes: DeviceScene[]): void;
}

/** A scene a bridge keeps (a Hue bridge scene): recalled there in one go with `recallScene`. */
export interface DeviceScene {
  /** The driver's own scene id. */
  id: string;
  name: string;
  /** What the scene sets, per device, as far as the driver can tell (shown, and the fallback). */
  state: Array<{ protocolid: string } & LightState>;
}

/**
 * Thrown by `setState` for a device the driver's site does not own (one MQTT broker serves every site):
 * the command is refused, never sent to another household's device.
 */
export class ForeignDeviceError extends Error {
  constructor(protocolid: string) {
    super(`${protocolid} is a device of another site`);
    this.name = 'ForeignDeviceError';
  }
}

export interface LightingDriver {
  /** Opens the link (bridge, serial port, broker). Must not throw for a link that is merely down. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Opens pairing / permit-join for about `durationMs` and resolves with the devices found meanwhile. */
  discover(opts: { durationMs: number }): Promise<DeviceInfo[]>;
  listDevices(): Promise<DeviceInfo[]>;
  /**
   * Sends a level to one device. Resolves once the command is handed to the device or bridge; the
   * confirmed level arrives later through `sink.reportState`. Rejects when the command cannot be sent.
   * `light` is the light's own description: a `binary` light must be switched, never dimmed, whatever the
   * driver guessed about the device from its id.
   */
  setState(protocolid: string, level: LightCommand, light?: LightTarget): Promise<void>;
  /**
   * Reads a device's state. The plugin calls it when a light is bound to the device (created, adopted or
   * moved to it: the light then shows what the device shows at once), for reconciliation when no report
   * arrived, and for the resync after a reconnect. A driver whose link can read implements it, from what it
   * already knows when that is current (a bridge listing) or by asking the device. Optional: some links
   * cannot read.
   */
  readState?(protocolid: string): Promise<LightState | null>;
  connection(): ConnectionStatus;
  /** Smallest-free sender-id base for radio vendors that allocate them (EnOcean Base ID), else absent. */
  subdefBase?(): string;
  /**
   * One command for several of its devices at once (a Zigbee groupcast, a Hue grouped_light), when the
   * link has such a thing. Optional: without it the plugin sends one command per light.
   */
  setGroupState?(group: GroupTarget, cmd: LightCommand): Promise<void>;
  /**
   * Recalls a scene the bridge keeps (one of those given to `sink.reportScenes`). Resolves once the bridge
   * took it; the lights' new states arrive through `sink.reportState`. Optional.
   */
  recallScene?(sceneId: string): Promise<void>;
}

/**
 * Who a whole-group command is for (docs/lighting.md#whole-group-commands). `id` is the plugin's group id,
 * stable for the group's life; `members` are this driver's devices in it right now, each with its light's
 * description. The driver keeps its own group (radio group id, bridge zone) matching `members` before it
 * sends, so the plugin never has to tell it about membership changes separately. Resolves once handed
 * over like `setState`; each device's confirmed state arrives through `sink.reportState`.
 */
export interface GroupTarget {
  id: string;
  members: Array<{ protocolid: string; light: LightTarget }>;
}

export interface DriverInit<O = Record<string, unknown>> {
  /** Instance id from config (`plugins.lighting.drivers[].id`). */
  id: string;
  options: O;
  sink: DriverSink;
  /** A child logger namespaced `drv:<type>`; drivers never pick their own sink. */
  log: Logger;
  signal: AbortSignal;
}

/** Builds a driver; does no I/O (that belongs in `start`). */
export type DriverFactory = (init: DriverInit) => LightingDriver;
