/** Light level rules from the spec, applied to every level that is stored, sent or returned. */
import {
  type LightColour,
  type LightLevel,
  type LightState,
  roundXy,
} from '../../../drivers/lighting/index.ts';
import type { LightType } from '../types.ts';
import { type Body, bool, bri } from './check.ts';

export const OFF: LightLevel = Object.freeze({ on: false, bri: 0 });

/**
 * spec: `on` is false exactly when `bri` is 0; binary lights only ever hold 0 or 255.
 * Contradictory input resolves to off: `on:false` with a level, or `on:true` with `bri:0`, both mean off
 * (either field saying "off" wins; documented in README).
 */
export function normalizeLevel(type: LightType, level: LightLevel): LightLevel {
  if (!level.on || level.bri <= 0) return { on: false, bri: 0 };
  const b = Math.min(255, Math.round(level.bri));
  return { on: true, bri: type === 'binary' ? 255 : b };
}

/** Parses `{on, bri}` from a request (both required, spec PUT /light/state) without normalising. */
export function parseLevel(body: Body): LightLevel {
  return { on: bool(body, 'on'), bri: bri(body) };
}

/** Same level and, where either side has them, the same colour fields. */
export function sameLevel(a: LightState, b: LightState): boolean {
  return (
    a.on === b.on &&
    a.bri === b.bri &&
    a.ct === b.ct &&
    a.colormode === b.colormode &&
    a.xy?.[0] === b.xy?.[0] &&
    a.xy?.[1] === b.xy?.[1]
  );
}

/**
 * The colour fields of a state (none for a light without colour). Every colour the plugin stores, answers,
 * pushes or emits passes here, so xy gets its documented 4 decimals here, whatever the driver reported.
 */
export function colourOf(s: LightColour): LightColour {
  const out: LightColour = {};
  if (s.ct !== undefined) out.ct = s.ct;
  if (s.xy !== undefined) out.xy = roundXy(s.xy);
  if (s.colormode !== undefined) out.colormode = s.colormode;
  return out;
}

/** A level with `colour` laid over `base`'s colour; the plain level itself when neither has colour. */
export function withColour(level: LightLevel, base: LightColour, colour?: LightColour): LightState {
  if (base.ct === undefined && base.xy === undefined && base.colormode === undefined && !colour) return level;
  return { ...level, ...colourOf(base), ...(colour ? colourOf(colour) : {}) };
}
