/**
 * What people type (Kelvin, `#rrggbb`, hue/saturation) turned into what a light takes (mirek, xy), limited
 * to what that light can show. The site API validates its fields and calls these once.
 */
import type { LightCapabilities, LightColour, Xy } from './capabilities.ts';
import { clipToGamut, HUE_GAMUT_C, hexToRgb, hsToXy, kelvinToMirek, mirekToXy, rgbToXy } from './colour.ts';
import { clamp } from './levels.ts';

/** The gamut assumed for a colour light that does not say (most current Zigbee colour bulbs: Hue's C). */
export const DEFAULT_GAMUT = HUE_GAMUT_C;

export type ColourInput =
  | { ct: number }
  | { kelvin: number }
  | { xy: Xy }
  | { hex: string }
  | { hue: number; sat: number };

/**
 * The colour state a light ends up in for one input: a colour temperature clipped to the light's range
 * (its xy follows the black-body locus when it also has colour), a colour clipped to its gamut. null for a
 * hex value that is not `#rrggbb`. The caller checks the light has the capability first.
 */
export function fitColour(input: ColourInput, caps: LightCapabilities): LightColour | null {
  if ('ct' in input || 'kelvin' in input) {
    const range = caps.ct ?? { min: 153, max: 500 };
    const mirek = 'ct' in input ? input.ct : kelvinToMirek(input.kelvin);
    const ct = clamp(Math.round(mirek), range.min, range.max);
    const out: LightColour = { ct, colormode: 'ct' };
    if (caps.xy) out.xy = clipToGamut(mirekToXy(ct), caps.xy.gamut);
    return out;
  }
  let xy: Xy;
  if ('xy' in input) xy = input.xy;
  else if ('hex' in input) {
    const rgb = hexToRgb(input.hex);
    if (!rgb) return null;
    xy = rgbToXy(rgb);
  } else xy = hsToXy(input.hue, input.sat);
  return { xy: clipToGamut(xy, caps.xy?.gamut ?? DEFAULT_GAMUT), colormode: 'xy' };
}
