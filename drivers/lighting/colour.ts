/**
 * Colour conversions, done once for every driver and the site API (docs/lighting.md#colour): mirek and
 * Kelvin, CIE 1931 xy and sRGB (IEC 61966-2-1 primaries, D65 white, its gamma), hue/saturation, `#rrggbb`,
 * and clipping a point into a light's gamut triangle.
 */
import type { Gamut, Xy } from './capabilities.ts';
import { clamp } from './levels.ts';

/** D65, sRGB's white point: what black and other colourless inputs map to. */
export const WHITE_XY: Xy = [0.3127, 0.329];

/** Gamut triangles Philips publishes for Hue lights (A: early LivingColors/Bloom, B: first Hue bulbs, C: current). */
export const HUE_GAMUT_A: Gamut = [
  [0.704, 0.296],
  [0.2151, 0.7106],
  [0.138, 0.08],
];
export const HUE_GAMUT_B: Gamut = [
  [0.675, 0.322],
  [0.409, 0.518],
  [0.167, 0.04],
];
export const HUE_GAMUT_C: Gamut = [
  [0.6915, 0.3083],
  [0.17, 0.7],
  [0.1532, 0.0475],
];
/** The sRGB primaries: what an RGB(W) strip with no published gamut can show at best. */
export const SRGB_GAMUT: Gamut = [
  [0.64, 0.33],
  [0.3, 0.6],
  [0.15, 0.06],
];

// ---- mirek and Kelvin ----

/** Kelvin → mirek (1,000,000 / K), rounded to whole mirek as every device takes it. */
export function kelvinToMirek(kelvin: number): number {
  return Math.round(1e6 / kelvin);
}

export function mirekToKelvin(mirek: number): number {
  return Math.round(1e6 / mirek);
}

/**
 * The xy of a black body at `mirek` (Kim et al. cubic approximation of the Planckian locus, valid from
 * 1667 K to 25000 K; outside that the nearest end is used).
 */
export function mirekToXy(mirek: number): Xy {
  const t = clamp(1e6 / mirek, 1667, 25000);
  const t2 = t * t;
  const t3 = t2 * t;
  const x =
    t <= 4000
      ? -0.2661239e9 / t3 - 0.234358e6 / t2 + 0.8776956e3 / t + 0.17991
      : -3.0258469e9 / t3 + 2.1070379e6 / t2 + 0.2226347e3 / t + 0.24039;
  const x2 = x * x;
  const x3 = x2 * x;
  const y =
    t <= 2222
      ? -1.1063814 * x3 - 1.3481102 * x2 + 2.18555832 * x - 0.20219683
      : t <= 4000
        ? -0.9549476 * x3 - 1.37418593 * x2 + 2.09137015 * x - 0.16748867
        : 3.081758 * x3 - 5.8733867 * x2 + 3.75112997 * x - 0.37001483;
  return [round4(x), round4(y)];
}

/** The correlated colour temperature of an xy point in mirek (McCamy's formula), for lights in xy mode. */
export function xyToMirek(xy: Xy): number {
  const n = (xy[0] - 0.332) / (0.1858 - xy[1]);
  const kelvin = 449 * n ** 3 + 3525 * n ** 2 + 6823.3 * n + 5520.33;
  return kelvinToMirek(clamp(kelvin, 1000, 40000));
}

// ---- xy and sRGB ----

const round4 = (n: number) => Math.round(n * 10000) / 10000;

/**
 * xy at the precision Hearth answers with everywhere (4 decimals: finer than any bulb shows, coarser than
 * ZCL's 1/65536 steps, so a read-back compares equal to what was set).
 */
export function roundXy(xy: Xy): Xy {
  return [round4(xy[0]), round4(xy[1])];
}
const toLinear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
const toGamma = (c: number) => (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055);

export interface Rgb {
  r: number;
  g: number;
  b: number;
}

/** sRGB 0..255 → xy. Black has no chromaticity and maps to the white point. */
export function rgbToXy({ r, g, b }: Rgb): Xy {
  const lr = toLinear(clamp(r, 0, 255) / 255);
  const lg = toLinear(clamp(g, 0, 255) / 255);
  const lb = toLinear(clamp(b, 0, 255) / 255);
  const X = 0.4124 * lr + 0.3576 * lg + 0.1805 * lb;
  const Y = 0.2126 * lr + 0.7152 * lg + 0.0722 * lb;
  const Z = 0.0193 * lr + 0.1192 * lg + 0.9505 * lb;
  const sum = X + Y + Z;
  if (sum <= 0) return WHITE_XY;
  return [round4(X / sum), round4(Y / sum)];
}

/**
 * xy → the brightest sRGB 0..255 of that chromaticity (the largest channel is 255). Points outside the
 * sRGB triangle get the nearest colour sRGB can show (negative channels are cut to 0).
 */
export function xyToRgb(xy: Xy): Rgb {
  const [x, y] = xy;
  if (y <= 0) return { r: 0, g: 0, b: 255 };
  const X = x / y;
  const Z = (1 - x - y) / y;
  const lin = [
    3.2406 * X - 1.5372 - 0.4986 * Z,
    -0.9689 * X + 1.8758 + 0.0415 * Z,
    0.0557 * X - 0.204 + 1.057 * Z,
  ].map((c) => Math.max(0, c));
  const max = Math.max(...lin);
  if (max <= 0) return { r: 255, g: 255, b: 255 };
  const [r, g, b] = lin.map((c) => Math.round(clamp(toGamma(c / max), 0, 1) * 255)) as [
    number,
    number,
    number,
  ];
  return { r, g, b };
}

// ---- hex ----

const HEX = /^#?([0-9a-f]{6})$/i;

/** `#rrggbb` (or `rrggbb`, any case) → RGB; null when it is not six hex digits. */
export function hexToRgb(hex: string): Rgb | null {
  const m = HEX.exec(hex);
  if (!m?.[1]) return null;
  const n = Number.parseInt(m[1], 16);
  return { r: (n >> 16) & 255, g: (n >> 8) & 255, b: n & 255 };
}

export function rgbToHex({ r, g, b }: Rgb): string {
  const h = (c: number) =>
    Math.round(clamp(c, 0, 255))
      .toString(16)
      .padStart(2, '0');
  return `#${h(r)}${h(g)}${h(b)}`;
}

// ---- hue and saturation ----

/** Hue 0..360° and saturation 0..100 % at full value (HSV) → RGB. */
export function hsToRgb(hue: number, sat: number): Rgb {
  const h = (((hue % 360) + 360) % 360) / 60;
  const s = clamp(sat, 0, 100) / 100;
  const f = (n: number) => {
    const k = (n + h) % 6;
    return Math.round((1 - s * Math.max(0, Math.min(k, 4 - k, 1))) * 255);
  };
  return { r: f(5), g: f(3), b: f(1) };
}

/** RGB → hue 0..360° and saturation 0..100 % (HSV; value is dropped: brightness is `bri`). */
export function rgbToHs({ r, g, b }: Rgb): { hue: number; sat: number } {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const d = max - min;
  if (max === 0 || d === 0) return { hue: 0, sat: 0 };
  let hue: number;
  if (max === r) hue = ((g - b) / d) % 6;
  else if (max === g) hue = (b - r) / d + 2;
  else hue = (r - g) / d + 4;
  return { hue: Math.round((hue * 60 + 360) % 360), sat: Math.round((d / max) * 100) };
}

export const hsToXy = (hue: number, sat: number): Xy => rgbToXy(hsToRgb(hue, sat));
export const xyToHs = (xy: Xy): { hue: number; sat: number } => rgbToHs(xyToRgb(xy));

// ---- gamut ----

const cross = (o: Xy, a: Xy, b: Xy) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);

export function inGamut(p: Xy, [r, g, b]: Gamut): boolean {
  const d1 = cross(r, g, p);
  const d2 = cross(g, b, p);
  const d3 = cross(b, r, p);
  const neg = d1 < 0 || d2 < 0 || d3 < 0;
  const pos = d1 > 0 || d2 > 0 || d3 > 0;
  return !(neg && pos);
}

function nearestOnSegment(p: Xy, a: Xy, b: Xy): Xy {
  const dx = b[0] - a[0];
  const dy = b[1] - a[1];
  const len = dx * dx + dy * dy;
  const t = len === 0 ? 0 : clamp(((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / len, 0, 1);
  return [a[0] + t * dx, a[1] + t * dy];
}

/** The point itself when the light can show it, else the nearest point on its gamut's edge; 4 decimals. */
export function clipToGamut(p: Xy, gamut: Gamut): Xy {
  if (inGamut(p, gamut)) return roundXy(p);
  const [r, g, b] = gamut;
  let best: Xy = r;
  let bestD = Number.POSITIVE_INFINITY;
  for (const [a, c] of [
    [r, g],
    [g, b],
    [b, r],
  ] as const) {
    const q = nearestOnSegment(p, a, c);
    const d = (q[0] - p[0]) ** 2 + (q[1] - p[1]) ** 2;
    if (d < bestD) {
      bestD = d;
      best = q;
    }
  }
  return [round4(best[0]), round4(best[1])];
}
