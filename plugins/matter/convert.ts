/**
 * Matter's scales ↔ Hearth's, each defined once (docs/matter.md#conversions). Level and xy use the
 * drivers/lighting conversions every Zigbee path uses, since Matter's clusters are ZCL's.
 */
import {
  briToLevel254,
  clamp,
  level254ToBri,
  type Xy,
  xyToZcl,
  zclToXy,
} from '../../drivers/lighting/index.ts';

/** Matter CurrentLevel 1..254 → Hearth bri 1..255 (1 ↔ 1, 254 ↔ 255). Matter 1.3 §1.6.6.2 */
export const levelToBri = (level: number): number => level254ToBri(clamp(level, 1, 254));

/** Hearth bri 1..255 → CurrentLevel 1..254; an off light (bri 0) keeps level 1, its OnOff says off. */
export const briToLevel = (bri: number): number => Math.max(1, briToLevel254(bri));

/** CurrentX/CurrentY = round(x · 65536), at most 0xFEFF (Matter 1.3 §3.2.7.3). */
export const xyToMatter = (xy: Xy): [number, number] => xyToZcl(xy);
export const matterToXy = (x: number, y: number): [number, number] => {
  const [cx, cy] = zclToXy(x, y);
  return [cx, cy];
};

/** Matter Hue 0..254 (whole circle) → degrees; Saturation 0..254 → percent. The colour itself is made in
 * drivers/lighting (`hsToXy`), through the lighting plugin, like every hue/saturation input. */
export const matterHueToDegrees = (hue: number): number => (clamp(hue, 0, 254) * 360) / 254;
export const matterEnhancedHueToDegrees = (hue: number): number => (clamp(hue, 0, 65535) * 360) / 65536;
export const matterSatToPercent = (sat: number): number => (clamp(sat, 0, 254) * 100) / 254;

/** Matter transition time (tenths of a second, null = as fast as the device likes) → Hearth seconds. */
export const transitionSeconds = (tenths: number | null | undefined): number | undefined =>
  tenths === null || tenths === undefined ? undefined : tenths / 10;

/** °C → TemperatureMeasurement's MeasuredValue, 0.01 °C in int16 (Matter 1.3 §2.3.4.1: −273.15 °C up). */
export const celsiusToMatter = (c: number): number => clamp(Math.round(c * 100), -27315, 32767);
/** % relative → RelativeHumidityMeasurement's MeasuredValue, 0.01 % (Matter 1.3 §2.6.4.1: 0–10000). */
export const humidityToMatter = (pct: number): number => clamp(Math.round(pct * 100), 0, 10000);
/**
 * lux → IlluminanceMeasurement's MeasuredValue = 10000·log10(lux) + 1 (Matter 1.3 §2.2.5.1), 1–0xFFFE;
 * 0 means "too low to be measured", which is what a sensor reporting 0 lux says.
 */
export const luxToMatter = (lux: number): number =>
  lux <= 0 ? 0 : clamp(Math.round(10000 * Math.log10(lux) + 1), 1, 0xfffe);
