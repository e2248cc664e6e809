/**
 * What a light can show beyond on and brightness, and the colour part of its state. Units are the ones
 * Hue, ZCL and zigbee2mqtt share: colour temperature in mirek (1,000,000 / Kelvin), colour as CIE 1931 xy
 * (docs/lighting.md#colour).
 */

/** A CIE 1931 chromaticity `[x, y]`, each 0..1. */
export type Xy = readonly [number, number];

/** The triangle of colours a light can show: its red, green and blue corners. */
export type Gamut = readonly [Xy, Xy, Xy];

export interface LightCapabilities {
  /** Colour temperature, in mirek; `min` is the coolest, `max` the warmest the light can show. */
  ct?: { min: number; max: number };
  /** Colour as xy inside `gamut`. */
  xy?: { gamut: Gamut };
}

/** Which of its colour settings the light shows now. */
export type ColourMode = 'ct' | 'xy';

/** The colour part of a light's state; absent fields are unknown or not supported. */
export interface LightColour {
  /** Colour temperature in mirek. */
  ct?: number;
  xy?: Xy;
  colormode?: ColourMode;
}

/**
 * The one colour setting a command asks a device to show. A command may carry both fields (a `ct` command
 * also carries its black-body xy, so a light that only takes colour can follow): `colormode` decides, so a
 * light that takes colour temperature is sent colour temperature. Without a mode, xy wins when given.
 */
export function commandColour(cmd: LightColour): { ct: number } | { xy: Xy } | null {
  const mode = cmd.colormode ?? (cmd.xy ? 'xy' : cmd.ct !== undefined ? 'ct' : undefined);
  if (mode === 'ct' && cmd.ct !== undefined) return { ct: cmd.ct };
  if (cmd.xy) return { xy: cmd.xy };
  return cmd.ct !== undefined ? { ct: cmd.ct } : null;
}
