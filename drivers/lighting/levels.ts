/** Brightness scales, defined once for all drivers (docs/lighting.md#brightness-scales). */

export const clamp = (n: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, n));

/** API 0..255 → percent 0..100 (Hue v2, Tasmota, Shelly). Any non-zero level stays ≥ 1 %. */
export function briToPercent(bri: number): number {
  if (bri <= 0) return 0;
  return clamp(Math.round((bri * 100) / 255), 1, 100);
}

/** Percent 0..100 → API 0..255. */
export function percentToBri(percent: number): number {
  return clamp(Math.round((clamp(percent, 0, 100) * 255) / 100), 0, 255);
}

/** API 0..255 → ZCL / Hue v1 / zigbee2mqtt level 1..254 (0 stays 0 and means off). */
export function briToLevel254(bri: number): number {
  if (bri <= 0) return 0;
  return clamp(Math.round((bri * 254) / 255), 1, 254);
}

/** ZCL / Hue v1 level 0..254 → API 0..255 (254 maps to full 255). */
export function level254ToBri(level: number): number {
  return clamp(Math.round((clamp(level, 0, 254) * 255) / 254), 0, 255);
}
