/**
 * The colour fields of a light command (`PUT /light/state`, scene entries, the WebSocket `set`): checked
 * against what the light can show and converted once by the shared module (README "Colour").
 */
import {
  type ColourInput,
  DEFAULT_GAMUT,
  fitColour,
  type LightCapabilities,
  type LightColour,
} from '../../../drivers/lighting/index.ts';
import { type Body, invalid } from './check.ts';

/** Every field a command may carry besides `on`/`bri` (a quick test keeps dimming as fast as before). */
export const COLOUR_KEYS = ['ct', 'kelvin', 'xy', 'hex', 'hue', 'sat', 'transition'] as const;

/**
 * `body` is any command object; its fields are checked, whatever its static type says. Written out field
 * by field (the same as COLOUR_KEYS): each lookup keeps its own inline cache, several times faster than a
 * loop over the names on the per-request path.
 */
export function hasColourFields(raw: object): boolean {
  const body = raw as Body;
  return (
    body.ct !== undefined ||
    body.kelvin !== undefined ||
    body.xy !== undefined ||
    body.hex !== undefined ||
    body.hue !== undefined ||
    body.sat !== undefined ||
    body.transition !== undefined
  );
}

export interface ColourCommand {
  colour?: LightColour;
  /** Seconds. */
  transition?: number;
}

type Triangle = [[number, number], [number, number], [number, number]];
const DEFAULT_GAMUT_COPY = (): Triangle => DEFAULT_GAMUT.map((p) => [p[0], p[1]]) as Triangle;

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function input(body: Body, lightId: string, caps: LightCapabilities): ColourInput | null {
  const temp = ['ct', 'kelvin'].filter((k) => body[k] !== undefined);
  const colour = ['xy', 'hex', 'hue', 'sat'].filter((k) => body[k] !== undefined);
  if (temp.length === 2) throw invalid('ct and kelvin: give one of them, not both');
  if (temp.length && colour.length)
    throw invalid(`${temp[0]} and ${colour[0]}: give a colour temperature or a colour, not both`);
  if (temp.length) {
    const field = temp[0] as 'ct' | 'kelvin';
    if (!caps.ct) throw invalid(`${field}: light ${lightId} has no colour temperature`);
    const v = body[field];
    if (field === 'ct') {
      const { min, max } = caps.ct;
      if (!isNum(v) || !Number.isInteger(v) || v < min || v > max)
        throw invalid(`ct must be an integer from ${min} to ${max} (mirek)`);
      return { ct: v };
    }
    if (!isNum(v) || v < 1000 || v > 40000) throw invalid('kelvin must be a number from 1000 to 40000');
    return { kelvin: v };
  }
  if (!colour.length) return null;
  const field = colour[0] as string;
  if (!caps.xy) throw invalid(`${field}: light ${lightId} has no colour`);
  if (colour.includes('xy') && colour.length > 1)
    throw invalid(`xy and ${colour.find((k) => k !== 'xy')}: give one form of colour`);
  if (colour.includes('hex') && colour.length > 1)
    throw invalid(`hex and ${colour.find((k) => k !== 'hex')}: give one form of colour`);
  if (field === 'xy') {
    const v = body.xy;
    if (!Array.isArray(v) || v.length !== 2 || !v.every((n) => isNum(n) && n >= 0 && n <= 1))
      throw invalid('xy must be [x, y] with numbers from 0 to 1');
    return { xy: [v[0] as number, v[1] as number] };
  }
  if (field === 'hex') {
    const v = body.hex;
    if (typeof v !== 'string' || !/^#[0-9a-fA-F]{6}$/.test(v)) throw invalid('hex must be #rrggbb');
    return { hex: v };
  }
  const { hue, sat } = body;
  if (hue === undefined || sat === undefined) throw invalid('hue and sat must be given together');
  if (!isNum(hue) || hue < 0 || hue > 360) throw invalid('hue must be a number from 0 to 360 (degrees)');
  if (!isNum(sat) || sat < 0 || sat > 100) throw invalid('sat must be a number from 0 to 100 (%)');
  return { hue, sat };
}

/** Parses the colour and transition fields of a command for one light; throws a 400 naming the field. */
export function parseColour(
  raw: object,
  lightId: string,
  caps: LightCapabilities | undefined,
): ColourCommand {
  const body = raw as Body;
  const out: ColourCommand = {};
  const t = body.transition;
  if (t !== undefined) {
    if (!isNum(t) || t < 0 || t > 3600)
      throw invalid('transition must be a number of seconds from 0 to 3600');
    out.transition = t;
  }
  const wanted = input(body, lightId, caps ?? {});
  if (wanted) {
    const colour = fitColour(wanted, caps ?? {});
    if (!colour) throw invalid('hex must be #rrggbb');
    out.colour = colour;
  }
  return out;
}

/** `capabilities` of `POST`/`PUT /light`: `{ct?: {min, max}, xy?: {gamut?: [[x,y],[x,y],[x,y]]}}`. */
export function parseCapabilities(v: unknown): LightCapabilities | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw invalid('capabilities must be an object');
  const c = v as Body;
  for (const k of Object.keys(c))
    if (k !== 'ct' && k !== 'xy') throw invalid(`unknown field capabilities.${k}`);
  const out: LightCapabilities = {};
  if (c.ct !== undefined) {
    const ct = c.ct as Body;
    const ok = (n: unknown) => isNum(n) && Number.isInteger(n) && n >= 50 && n <= 1000;
    if (
      typeof ct !== 'object' ||
      ct === null ||
      !ok(ct.min) ||
      !ok(ct.max) ||
      (ct.min as number) > (ct.max as number)
    )
      throw invalid('capabilities.ct must be {min, max}: integers (mirek) from 50 to 1000, min ≤ max');
    out.ct = { min: ct.min as number, max: ct.max as number };
  }
  if (c.xy !== undefined) {
    const xy = c.xy as Body;
    if (typeof xy !== 'object' || xy === null || Array.isArray(xy))
      throw invalid('capabilities.xy must be an object ({} or {gamut})');
    const g = xy.gamut;
    const point = (p: unknown) =>
      Array.isArray(p) && p.length === 2 && p.every((n) => isNum(n) && n >= 0 && n <= 1);
    if (g === undefined) out.xy = { gamut: DEFAULT_GAMUT_COPY() };
    else if (Array.isArray(g) && g.length === 3 && g.every(point))
      out.xy = { gamut: g.map((p) => [p[0], p[1]]) as Triangle };
    else
      throw invalid(
        'capabilities.xy.gamut must be three [x, y] points (red, green, blue), numbers from 0 to 1',
      );
  }
  return Object.keys(out).length ? out : undefined;
}
