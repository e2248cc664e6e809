/** What a device profile does: which topics to watch, how to command, how to ask, how to read. */
import type { LightColour, LightCommand, SensorReadings } from '../../lighting/index.ts';
import type { MqttDevice } from '../device.ts';

/** What one device message means. A state may be partial (Tasmota `POWER` alone carries no level). */
export type Inbound =
  /** `dimOnly`: a brightness alone that does not switch the light (HA default schema's brightness topic). */
  | ({ type: 'state'; on?: boolean; bri?: number; dimOnly?: boolean } & LightColour)
  | { type: 'availability'; online: boolean }
  | { type: 'event'; event: string }
  /** A sensor's readings (docs/mqtt-devices.md#sensor-readings). */
  | { type: 'readings'; readings: SensorReadings };

/** A message to a device. Hearth never publishes retained commands (Tasmota "ghost switching", §2.5). */
export interface OutMessage {
  topic: string;
  payload: string;
}

export interface Profile {
  /** Exact topics (no wildcards) this device publishes on. */
  topics(d: MqttDevice): string[];
  /** Messages that set the level (spec: on is false exactly when bri is 0). */
  command(d: MqttDevice, level: LightCommand): OutMessage[];
  /** Messages that make the device report its state: sent after every (re)connection (§2.7 full resync). */
  query(d: MqttDevice): OutMessage[];
  /** Reads one message on one of `topics(d)`; throws PayloadError on malformed input. */
  parse(d: MqttDevice, topic: string, payload: Buffer): Inbound[];
}
