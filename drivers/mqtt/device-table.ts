/**
 * The devices one driver instance serves, indexed by the exact topics they publish on, with what each
 * last reported (level, presence). A message is routed by one map lookup, whatever the number of devices.
 */
import type { LightLevel, LightState } from '../lighting/index.ts';
import type { MqttDevice } from './device.ts';
import { profiles } from './profiles/index.ts';

export type DeviceSource = 'configured' | 'homeassistant' | 'zigbee2mqtt' | 'tasmota' | 'implicit';

export interface Entry {
  device: MqttDevice;
  source: DeviceSource;
  level: LightState | null;
  /** Last non-zero brightness, so a bare "ON" report comes back at the level the light had. */
  lastBri: number;
  /** null until the device said anything about its presence. */
  online: boolean | null;
  /** Discovery no longer lists it: kept (lights may use it) and marked unavailable. */
  gone: boolean;
  topics: string[];
}

export class DeviceTable {
  readonly #entries = new Map<string, Entry>();
  readonly #byTopic = new Map<string, Set<Entry>>();

  get(protocolid: string): Entry | undefined {
    return this.#entries.get(protocolid);
  }

  all(): Entry[] {
    return [...this.#entries.values()];
  }

  forTopic(topic: string): ReadonlySet<Entry> | undefined {
    return this.#byTopic.get(topic);
  }

  /** Adds or replaces a device; returns the topics no device publishes on any more (to unsubscribe). */
  put(device: MqttDevice, source: DeviceSource): { entry: Entry; stale: string[] } {
    const old = this.#entries.get(device.protocolid);
    const topics = profiles[device.profile].topics(device);
    const previous = old ? old.topics : [];
    if (old) this.#unindex(old);
    const entry: Entry = old
      ? Object.assign(old, { device, source, gone: false, topics })
      : { device, source, level: null, lastBri: 0, online: null, gone: false, topics };
    for (const t of topics) {
      let set = this.#byTopic.get(t);
      if (!set) {
        set = new Set();
        this.#byTopic.set(t, set);
      }
      set.add(entry);
    }
    this.#entries.set(device.protocolid, entry);
    return { entry, stale: previous.filter((t) => !this.#byTopic.has(t)) };
  }

  #unindex(entry: Entry): void {
    for (const t of entry.topics) {
      const set = this.#byTopic.get(t);
      set?.delete(entry);
      if (set && set.size === 0) this.#byTopic.delete(t);
    }
  }

  /** Devices that vanished from discovery or whose last will said offline. */
  unavailable(): string[] {
    return this.all()
      .filter((e) => e.gone || e.online === false)
      .map((e) => e.device.protocolid);
  }
}

/** A (possibly partial) report merged into a full level. spec: on is false exactly when bri is 0. */
export function mergeLevel(entry: Entry, on: boolean | undefined, bri: number | undefined): LightLevel {
  const prev = entry.level;
  const isOn = on ?? (bri !== undefined ? bri > 0 : (prev?.on ?? false));
  if (!isOn) return { on: false, bri: 0 };
  if (entry.device.kind === 'binary') return { on: true, bri: 255 };
  const level = bri ?? (entry.lastBri > 0 ? entry.lastBri : 255);
  return level > 0 ? { on: true, bri: level } : { on: false, bri: 0 };
}
