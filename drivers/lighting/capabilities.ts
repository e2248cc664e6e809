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
