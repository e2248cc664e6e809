// Sensor readings as the household app shows them: each reading with its unit, in the page's language,
// and the warnings (battery low, silent too long) the hub attaches to a sensor.
import { lang, t } from './i18n.js';

/** The readings shown, in this order, with their units (link quality and voltage are for the console). */
export const SHOWN = [
  ['temperature', '°C', 1],
  ['humidity', '%', 0],
  ['pressure', 'hPa', 0],
  ['illuminance', 'lx', 0],
  ['battery', '%', 0],
];

/** Below this battery percentage the hub warns; the app shows a live reading the same way. */
export const LOW_BATTERY = 15;

export function readingText(name, value) {
  const spec = SHOWN.find(([n]) => n === name);
  if (!spec || typeof value !== 'number') return '';
  const [, unit, digits] = spec;
  const n = value.toLocaleString(lang, { maximumFractionDigits: digits });
  return `${t(`reading_${name}`)} ${n} ${unit}`;
}

/** "Temperature 21.5 °C · Battery 70 %". */
export function readingsLine(readings) {
  return SHOWN.map(([name]) => readingText(name, readings?.[name]))
    .filter(Boolean)
    .join(' · ');
}

export function warningText(w) {
  return w === 'low_battery' ? t('warnLowBattery') : w === 'silent' ? t('warnSilent') : w;
}

/** A live `sensorReadings` push folded into the sensor the app holds. */
export function foldReadings(sensor, push) {
  sensor.readings = { ...sensor.readings, ...push.readings, lastSeen: push.at };
  const others = (sensor.warnings ?? []).filter((w) => w !== 'low_battery' && w !== 'silent');
  if (typeof sensor.readings.battery === 'number' && sensor.readings.battery < LOW_BATTERY)
    others.push('low_battery');
  sensor.warnings = others;
}
