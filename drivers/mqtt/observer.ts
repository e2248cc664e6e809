/** What the plugin hosting the driver wants to hear besides the lighting sink (registry, Hearth topics). */
import type { LightLevel } from '../lighting/index.ts';
import type { MqttDevice } from './device.ts';
import type { DeviceSource } from './device-table.ts';
import type { MqttLink } from './link.ts';

export interface DriverObserver {
  /** Discovery announced a device (first time or changed). */
  discovered?(device: MqttDevice, source: DeviceSource): void;
  /** Discovery no longer lists the device; it stays known and is marked unavailable. */
  gone?(protocolid: string): void;
  availability?(protocolid: string, online: boolean): void;
  state?(protocolid: string, level: LightLevel): void;
  event?(protocolid: string, event: string): void;
  /** Extra fields for the connection detail (e.g. which devices are new). */
  detail?(): Record<string, unknown>;
  /**
   * Whether the device belongs to this driver's site (every site's driver reaches every device on the
   * broker). A device it does not own gets no command and none of its reports reach the site.
   */
  owns?(protocolid: string): boolean;
}

export interface MqttDriverDeps {
  /** The link used when the options name no external broker (the hub's own broker). */
  inProcess?: () => MqttLink;
  /** Per driver instance id. */
  observer?: (driverId: string) => DriverObserver | undefined;
}
