/**
 * Sensor readings (docs/lighting.md#sensor-readings): each sensor's last value of every reading and when
 * it was last heard from, kept in `lighting.readings.json` (coalesced writes: readings are high-rate state,
 * like light levels), and the warnings derived from them: a low battery, a device silent for longer than
 * its kind allows.
 */
import type { DocStore } from '../../../core/sdk.ts';
import { READING_NAMES, type SensorReadings } from '../../../drivers/lighting/index.ts';
import type { SensorRecord } from '../types.ts';

/** Below this battery percentage a sensor is shown with a `low_battery` warning. */
export const LOW_BATTERY_PERCENT = 15;

export interface ReadingsDoc {
  sensors: Record<string, { values: SensorReadings; lastSeen: number }>;
}

export const defaultReadingsDoc = (): ReadingsDoc => ({ sensors: {} });

export type SensorWarning = 'low_battery' | 'silent';

/** What the site API adds to a sensor: its readings with `lastSeen`, and its warnings. */
export interface ReadingsView {
  readings?: SensorReadings & { lastSeen: string };
  warnings?: SensorWarning[];
}

/** Keeps only known readings with finite numbers (a driver's slip never reaches the API or the file). */
export function cleanReadings(r: SensorReadings): SensorReadings {
  const out: SensorReadings = {};
  for (const k of READING_NAMES) {
    const v = r[k];
    if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
  }
  return out;
}

export class SensorReadingsStore {
  readonly #doc: DocStore<ReadingsDoc>;
  readonly #now: () => number;

  constructor(doc: DocStore<ReadingsDoc>, now: () => number = Date.now) {
    this.#doc = doc;
    this.#now = now;
  }

  /** Stores what a sensor reported; returns the readings whose value changed (empty: nothing new). */
  update(sensorId: string, readings: SensorReadings): SensorReadings {
    const clean = cleanReadings(readings);
    const changed: SensorReadings = {};
    const at = this.#now();
    this.#doc.update((d) => {
      const entry = d.sensors[sensorId] ?? { values: {}, lastSeen: at };
      for (const k of READING_NAMES) {
        const v = clean[k];
        if (v === undefined) continue;
        if (entry.values[k] !== v) changed[k] = v;
        entry.values[k] = v;
      }
      entry.lastSeen = at;
      d.sensors[sensorId] = entry;
    });
    return changed;
  }

  /** The sensor was heard from (an event). */
  seen(sensorId: string): void {
    const at = this.#now();
    this.#doc.update((d) => {
      d.sensors[sensorId] = { values: d.sensors[sensorId]?.values ?? {}, lastSeen: at };
    });
  }

  /** Every sensor's entry (for pruning sensors that were deleted). */
  all(): Readonly<ReadingsDoc['sensors']> {
    return this.#doc.data.sensors;
  }

  values(sensorId: string): SensorReadings {
    return this.#doc.data.sensors[sensorId]?.values ?? {};
  }

  /** The fields the API adds to a sensor; none for a sensor never heard from (the seed's shape). */
  view(sensor: SensorRecord): ReadingsView {
    const entry = this.#doc.data.sensors[sensor._id];
    if (!entry) return {};
    const warnings = this.warnings(sensor);
    return {
      readings: { ...entry.values, lastSeen: new Date(entry.lastSeen).toISOString() },
      ...(warnings.length ? { warnings } : {}),
    };
  }

  warnings(sensor: SensorRecord): SensorWarning[] {
    const entry = this.#doc.data.sensors[sensor._id];
    if (!entry) return [];
    const out: SensorWarning[] = [];
    const battery = entry.values.battery;
    if (battery !== undefined && battery < LOW_BATTERY_PERCENT) out.push('low_battery');
    if (sensor.checkInSeconds && this.#now() - entry.lastSeen > sensor.checkInSeconds * 1000)
      out.push('silent');
    return out;
  }

  forget(sensorIds: Iterable<string>): void {
    const ids = [...sensorIds].filter((id) => this.#doc.data.sensors[id]);
    if (ids.length === 0) return;
    this.#doc.update((d) => {
      for (const id of ids) delete d.sensors[id];
    });
  }

  flush(): Promise<void> {
    return this.#doc.flush();
  }
}
