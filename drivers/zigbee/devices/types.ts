/**
 * What one entry of the device table says about a family of devices (docs/zigbee.md#adding-a-device):
 * which models it covers, how to set them up at pairing, and how their frames become sensor events and
 * readings. Everything is optional but the models: what an entry leaves out stays generic ZCL.
 */
import type { Gamut, ReadingName, SensorReadings } from '../../lighting/index.ts';
import type { AttrRecord, ReportingConfig } from '../zcl/foundation.ts';
import type { ZclFrame } from '../zcl/frame.ts';

export interface ModelEntry {
  /** The Basic cluster's `ModelIdentifier` as the device reports it (`lumi.sensor_switch.aq2`). */
  zigbeeModel: string[];
  /** The model people know (zigbee2mqtt's `model`, printed on the box): `WXKG11LM`. */
  model: string;
  description: string;
  /** This model's events, when they differ from the family's. */
  events?: string[];
  /** A bulb's colour temperature range (mirek) when the device's own is missing or wrong. */
  ct?: { min: number; max: number };
  /** A bulb's colour gamut (its maker publishes it per model; ZCL has no attribute for it). */
  gamut?: Gamut;
}

/** What a frame became: events in order, and readings. */
export interface Output {
  events?: string[];
  readings?: SensorReadings;
}

/** Where a frame came from and what the device's entry may remember between frames. */
export interface FrameContext {
  /** The endpoint that sent it (a wall switch's left and right buttons are two endpoints). */
  endpoint: number;
  /** Per device, kept while the driver runs (the arrow being held, the last click). */
  memory: Record<string, unknown>;
}

export interface DeviceDefinition {
  /** The maker as people call it: `Aqara`, `IKEA`. */
  vendor: string;
  /** The Basic cluster's `ManufacturerName`, when a model id alone is not unique enough. */
  manufacturer?: RegExp;
  models: ModelEntry[];
  /**
   * `sensor`: Hearth shows the device as a sensor (a remote) even if it has an On/Off server cluster (an
   * Aqara wall switch without neutral used as a remote). Absent: the generic rule by clusters.
   */
  kind?: 'sensor';
  /** The events the device emits (zigbee2mqtt's action names); absent: the generic list by clusters. */
  events?: string[];
  readings?: ReadingName[];
  /** See DeviceInfo.checkInSeconds. */
  checkInSeconds?: number;
  /**
   * False: nothing bound and no configure-reporting at pairing (devices that ignore it or fall asleep
   * before answering, such as Xiaomi's: they report to the coordinator on their own). Default true.
   */
  setUp?: boolean;
  /** Reporting to configure besides the generic one, per cluster (a remote's battery). */
  reporting?: Record<number, ReportingConfig[]>;
  /** Client (output) clusters to bind to the coordinator besides the generic ones (a remote's extra commands). */
  bind?: number[];
  /**
   * Hearth sends `no_motion` this many seconds after the last `motion`: for sensors that never send it
   * (zigbee2mqtt's `occupancy_timeout`). The driver option `occupancyTimeoutSeconds` overrides it.
   */
  noMotionAfterSeconds?: number;
  /** Attribute reports (and read answers) this entry handles; undefined leaves the frame to the generic rules. */
  attributes?(cluster: number, records: AttrRecord[], ctx: FrameContext): Output | undefined;
  /** Cluster commands the device sends; undefined leaves the frame to the generic rules. */
  commands?(cluster: number, frame: ZclFrame, ctx: FrameContext): Output | undefined;
}

/** A matched entry and the model within it. */
export interface Match {
  definition: DeviceDefinition;
  model: ModelEntry;
}
