/**
 * Each device family's colour scales (docs/mqtt-devices.md#colour-on-the-wire), converted from and to the
 * API's mirek and xy in one place.
 */
import type { Xy } from './capabilities.ts';
import { hexToRgb, mirekToXy, type Rgb, rgbToHex, rgbToXy, xyToRgb } from './colour.ts';
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

/** Whether a Tasmota `Color` has a white channel lit (`RRGGBBWW[WW]` or a fourth/fifth decimal). */
export function tasmotaWhiteLit(color: string): boolean {
  if (color.includes(','))
    return color
      .split(',')
      .slice(3)
      .some((p) => Number(p.trim()) > 0);
  const whites = color.replace(/^#/, '').slice(6);
  return /^[0-9a-f]{2,4}$/i.test(whites) && Number.parseInt(whites, 16) > 0;
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

/**
 * xy → Shelly `red`/`green`/`blue`/`white` 0..255 at full value (the level goes to `gain`): the grey every
 * channel shares goes to the white LED, as on other RGBW lights (`rgbToRgbw`).
 */
export function xyToShellyRgbw(xy: Xy): { red: number; green: number; blue: number; white: number } {
  const { r, g, b, w } = rgbToRgbw(xyToRgb(xy));
  return { red: r, green: g, blue: b, white: w };
}

/** A Shelly colour status → xy, its white channel counted as white (set by the Shelly app, or by Hearth). */
export function shellyRgbwToXy(red: number, green: number, blue: number, white: number): Xy | null {
  return rgbwToXy({ r: red, g: green, b: blue, w: white });
}

// ---- RGB with white channels (Home Assistant `rgbw`/`rgbww`, `white`) ----

/**
 * An RGB colour on an RGBW light: the grey part every channel shares goes to the white LED, so white is
 * shown by the white LED and saturated colours by the RGB ones (HA leaves the split to whoever commands).
 */
export function rgbToRgbw({ r, g, b }: Rgb): Rgb & { w: number } {
  const w = Math.min(r, g, b);
  return { r: r - w, g: g - w, b: b - w, w };
}

/** RGB plus a white share added to every channel, scaled back so no channel passes 255. */
function withWhite(rgb: Rgb, white: Rgb): Rgb {
  const sum = { r: rgb.r + white.r, g: rgb.g + white.g, b: rgb.b + white.b };
  const max = Math.max(sum.r, sum.g, sum.b);
  const k = max > 255 ? 255 / max : 1;
  return { r: sum.r * k, g: sum.g * k, b: sum.b * k };
}

/** The colour an RGBW light shows: its white LED counted as the white point (equal RGB). null when dark. */
export function rgbwToXy(c: Rgb & { w: number }): Xy | null {
  if (c.r + c.g + c.b + c.w <= 0) return null;
  return rgbToXy(withWhite(c, { r: c.w, g: c.w, b: c.w }));
}

/**
 * A colour temperature on an RGBWW light (cold and warm white LEDs at the ends of its mired range):
 * the two whites mixed by where `mirek` sits in the range, the larger at 255 (the level is separate), as
 * Home Assistant mixes them.
 */
export function mirekToColdWarm(
  mirek: number,
  range: { min: number; max: number },
): { c: number; w: number } {
  const span = range.max - range.min;
  const warm = span > 0 ? clamp((mirek - range.min) / span, 0, 1) : 0.5;
  const k = 255 / Math.max(warm, 1 - warm);
  return { c: Math.round((1 - warm) * k), w: Math.round(warm * k) };
}

/** The inverse of `mirekToColdWarm`: the mired value two white LEDs mix to. */
export function coldWarmToMirek(c: number, w: number, range: { min: number; max: number }): number {
  const total = c + w;
  if (total <= 0) return range.min;
  return Math.round(range.min + (w / total) * (range.max - range.min));
}

/**
 * The colour an RGBWW light shows when its RGB LEDs are lit too: cold white counted as the white point,
 * warm white as the black body at the warm end of its range. null when dark.
 */
export function rgbwwToXy(c: Rgb & { c: number; w: number }, range: { min: number; max: number }): Xy | null {
  if (c.r + c.g + c.b + c.c + c.w <= 0) return null;
  const warm = xyToRgb(mirekToXy(range.max));
  const whites = {
    r: c.c + (c.w * warm.r) / 255,
    g: c.c + (c.w * warm.g) / 255,
    b: c.c + (c.w * warm.b) / 255,
  };
  return rgbToXy(withWhite(c, whites));
}
