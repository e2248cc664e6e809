/**
 * Sensor readings in each profile's own words, as Hearth's readings (docs/mqtt-devices.md#sensor-readings):
 * zigbee2mqtt's state JSON keys are already Hearth's names; Tasmota's `tele/<topic>/SENSOR` nests them per
 * sensor chip (`{"AM2301":{"Temperature":21.5,"Humidity":48}}`, unit in `TempUnit`); Shelly Gen1 publishes
 * one plain number per topic (`<id>/sensor/temperature`), Gen2 one JSON status per component
 * (`<id>/status/temperature:0` `{"tC":21.5}`).
 */
import type { SensorReadings } from '../../lighting/index.ts';

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const fToC = (f: number) => Math.round(((f - 32) * 5 * 100) / 9) / 100;

/** zigbee2mqtt: `temperature`, `humidity`, `pressure`, `illuminance_lux` (older) or `illuminance`, `battery`, `voltage`, `linkquality`. */
export function z2mReadings(obj: Record<string, unknown>): SensorReadings {
  const r: SensorReadings = {};
  if (num(obj.temperature)) r.temperature = obj.temperature;
  if (num(obj.humidity)) r.humidity = obj.humidity;
  if (num(obj.pressure)) r.pressure = obj.pressure;
  // Before zigbee2mqtt 2.0 `illuminance` was the raw ZCL value and `illuminance_lux` the lux.
  if (num(obj.illuminance_lux)) r.illuminance = obj.illuminance_lux;
  else if (num(obj.illuminance)) r.illuminance = obj.illuminance;
  if (num(obj.battery)) r.battery = obj.battery;
  if (num(obj.voltage)) r.voltage = obj.voltage;
  if (num(obj.linkquality)) r.linkquality = obj.linkquality;
  return r;
}

/** Tasmota SENSOR telemetry: the first chip that has each reading; Fahrenheit converted. */
export function tasmotaReadings(obj: Record<string, unknown>): SensorReadings {
  const r: SensorReadings = {};
  const fahrenheit = obj.TempUnit === 'F';
  for (const value of Object.values(obj)) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) continue;
    const chip = value as Record<string, unknown>;
    if (r.temperature === undefined && num(chip.Temperature))
      r.temperature = fahrenheit ? fToC(chip.Temperature) : chip.Temperature;
    if (r.humidity === undefined && num(chip.Humidity)) r.humidity = chip.Humidity;
    if (r.pressure === undefined && num(chip.Pressure)) r.pressure = chip.Pressure;
    if (r.illuminance === undefined && num(chip.Illuminance)) r.illuminance = chip.Illuminance;
  }
  return r;
}

/** Shelly Gen1 `<id>/sensor/<name>`: a plain number (H&T, Door/Window, Motion). */
export function shellyGen1Reading(name: string, text: string): SensorReadings {
  const v = Number(text.trim());
  if (!Number.isFinite(v) || text.trim() === '') return {};
  switch (name) {
    case 'temperature':
      return { temperature: v };
    case 'humidity':
      return { humidity: v };
    case 'lux':
      return { illuminance: v };
    case 'battery':
      return { battery: v };
    default:
      return {};
  }
}

/** Shelly Gen2 component statuses: `temperature:N` `{tC}`, `humidity:N` `{rh}`, `illuminance:N` `{lux}`, `devicepower:N` `{battery:{V, percent}}`. */
export function shellyGen2Readings(component: string, obj: Record<string, unknown>): SensorReadings {
  const kind = component.split(':')[0];
  if (kind === 'temperature' && num(obj.tC)) return { temperature: obj.tC };
  if (kind === 'humidity' && num(obj.rh)) return { humidity: obj.rh };
  if (kind === 'illuminance' && num(obj.lux)) return { illuminance: obj.lux };
  if (kind === 'devicepower' && typeof obj.battery === 'object' && obj.battery !== null) {
    const b = obj.battery as Record<string, unknown>;
    const r: SensorReadings = {};
    if (num(b.percent)) r.battery = b.percent;
    if (num(b.V)) r.voltage = Math.round(b.V * 1000);
    return r;
  }
  return {};
}

/** The SHELLY Gen2 components whose status is a reading. */
export const SHELLY_GEN2_SENSOR_COMPONENTS = [
  'temperature:0',
  'humidity:0',
  'illuminance:0',
  'devicepower:0',
];
export const SHELLY_GEN1_SENSOR_TOPICS = ['temperature', 'humidity', 'lux', 'battery'];

export const anyReading = (r: SensorReadings): boolean => Object.keys(r).length > 0;
