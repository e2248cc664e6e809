/**
 * Readings from the standard measurement clusters (ZCL r7 chapter 4) and Power Configuration (§3.3), for
 * every device; a table entry handles only what its device does differently.
 */
import type { SensorReadings } from '../../lighting/index.ts';
import { Attr, Cluster } from '../zcl/clusters.ts';
import type { AttrRecord, ReportingConfig } from '../zcl/foundation.ts';
import { DataType } from '../zcl/types.ts';

/** Battery reporting for the entries that ask for it: at most hourly, at least every six hours. */
export const BATTERY_REPORTING: ReportingConfig[] = [
  { attr: Attr.BATTERY_PERCENT, type: DataType.UINT8, minSeconds: 3600, maxSeconds: 21_600, change: 2 },
];

const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;

/** ZCL's invalid measured values (§4.4.2.2.1.1 and siblings): the sensor has no reading. */
const INVALID = new Set([0x8000, 0xffff, -0x8000]);

/** Illuminance `MeasuredValue` is 10 000 × log10(lux) + 1 (ZCL r7 §4.2.2.2.1.1). */
export const luxFromZcl = (v: number): number => (v <= 0 ? 0 : Math.round(10 ** ((v - 1) / 10_000)));

/** The readings in one cluster's attribute records; empty when none. */
export function standardReadings(cluster: number, records: AttrRecord[]): SensorReadings {
  const out: SensorReadings = {};
  for (const r of records) {
    if (typeof r.value !== 'number') continue;
    const v = r.value;
    if (r.attr === Attr.MEASURED_VALUE && !INVALID.has(v)) {
      if (cluster === Cluster.TEMPERATURE) out.temperature = round(v / 100, 2);
      else if (cluster === Cluster.HUMIDITY) out.humidity = round(v / 100, 2);
      // kPa × 10 is hPa (§4.5.2.2.1.1).
      else if (cluster === Cluster.PRESSURE) out.pressure = v;
      else if (cluster === Cluster.ILLUMINANCE) out.illuminance = luxFromZcl(v);
    }
    if (cluster === Cluster.POWER_CFG) {
      if (r.attr === Attr.BATTERY_PERCENT && v !== 0xff) out.battery = Math.min(100, Math.round(v / 2));
      if (r.attr === Attr.BATTERY_VOLTAGE && v !== 0xff) out.voltage = v * 100;
    }
  }
  return out;
}

/**
 * A CR2032-class cell's voltage as a percentage: linear from 2.85 V (empty as far as the radio is concerned)
 * to 3.0 V (new). Xiaomi devices report only the voltage.
 */
export function batteryFromMillivolts(mv: number): number {
  return Math.max(0, Math.min(100, Math.round(((mv - 2850) / 150) * 100)));
}

export const hasReadings = (r: SensorReadings | undefined): r is SensorReadings =>
  r !== undefined && Object.keys(r).length > 0;
