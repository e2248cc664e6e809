/**
 * Each device family's colour scales (docs/mqtt-devices.md#colour-on-the-wire), converted from and to the
 * API's mirek and xy in one place.
 */
import type { Xy } from './capabilities.ts';
import { hexToRgb, type Rgb, rgbToHex, rgbToXy, xyToRgb } from './colour.ts';
import { clamp } from './levels.ts';

// ---- ZCL (Color Control cluster) ----

/** ZCL CurrentX/CurrentY: x = value / 65536, at most 0xfeff. */
export const xyToZcl = (xy: Xy): [number, number] => [
  clamp(Math.round(xy[0] * 65536), 0, 0xfeff),
  clamp(Math.round(xy[1] * 65536), 0, 0xfeff),
];
export const zclToXy = (x: number, y: number): Xy => [
  Math.round((x / 65536) * 10000) / 10000,
  Math.round((y / 65536) * 10000) / 10000,
];

// ---- Tasmota ----

/** Tasmota `CT` takes 153..500 mireds (6500 K .. 2000 K). */
export const TASMOTA_CT = { min: 153, max: 500 } as const;
export const mirekToTasmotaCt = (mirek: number): number =>
  clamp(Math.round(mirek), TASMOTA_CT.min, TASMOTA_CT.max);

/** Tasmota `Color` as sent: `RRGGBB` at full value (the level is `Dimmer`). */
export const xyToTasmotaColor = (xy: Xy): string => rgbToHex(xyToRgb(xy)).slice(1).toUpperCase();

/**
 * Tasmota reports `Color` as `RRGGBB`, with white channels appended (`RRGGBBWW`, `RRGGBBCCWW`) and in
 * decimal (`255,128,0`) when `SetOption17` is on. null when none of those.
 */
export function tasmotaColorToXy(color: string): Xy | null {
  const rgb = color.includes(',') ? decimalRgb(color) : hexToRgb(color.replace(/^#/, '').slice(0, 6));
  if (!rgb || (rgb.r === 0 && rgb.g === 0 && rgb.b === 0)) return null;
  return rgbToXy(rgb);
}

function decimalRgb(color: string): Rgb | null {
  const parts = color.split(',').map((p) => Number(p.trim()));
  const [r, g, b] = parts;
  if (r === undefined || g === undefined || b === undefined) return null;
  if (![r, g, b].every((n) => Number.isInteger(n) && n >= 0 && n <= 255)) return null;
  return { r, g, b };
}

// ---- Shelly Gen1 colour (Bulb, RGBW2 in colour mode) ----

/** Shelly Gen1 Bulb white mode takes `temp` 3000..6500 K. */
export const SHELLY_BULB_TEMP = { minK: 3000, maxK: 6500 } as const;

/** xy → Shelly `red`/`green`/`blue` 0..255 at full value, `white` 0 (the level goes to `gain`). */
export function xyToShellyRgbw(xy: Xy): { red: number; green: number; blue: number; white: number } {
  const { r, g, b } = xyToRgb(xy);
  return { red: r, green: g, blue: b, white: 0 };
}

export function shellyRgbToXy(red: number, green: number, blue: number): Xy | null {
  if (red <= 0 && green <= 0 && blue <= 0) return null;
  return rgbToXy({ r: red, g: green, b: blue });
}
