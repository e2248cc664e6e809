/**
 * Between CLIP v2 resources and Hearth's devices, levels and sensor events (docs/hue.md#the-resources).
 * Protocol ids: a light's own id; `grouped_light/<id>` for the group of a room or zone; a sensor is the
 * Hue device that owns the button, rotary, motion or contact services.
 */
import {
  briToPercent,
  clamp,
  clipToGamut,
  type DeviceInfo,
  type DeviceScene,
  type Gamut,
  type LightCapabilities,
  type LightCommand,
  type LightState,
  percentToBri,
  type Xy,
} from '../lighting/index.ts';
import type { HueResource } from './client.ts';
import type { HueEvent } from './events.ts';

export const GROUP_PREFIX = 'grouped_light/';
const SENSOR_TYPES = new Set(['button', 'relative_rotary', 'motion', 'contact']);
export const BUTTON_EVENTS = ['initial_press', 'short_release', 'long_press', 'repeat', 'long_release'];

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;
const refs = (v: unknown): Array<{ rid: string; rtype: string }> =>
  Array.isArray(v) ? v.filter((r) => typeof r?.rid === 'string' && typeof r?.rtype === 'string') : [];
const nameOf = (r: HueResource | undefined): string | undefined => {
  const n = obj(r?.metadata)?.name;
  return typeof n === 'string' ? n : undefined;
};

/**
 * A Hue smart plug: its device's `product_data.product_archetype` is `plug`. The light's own
 * `metadata.archetype` is what the user says is plugged in (a floor lamp…), so it is not used.
 */
const isPlug = (dev: HueResource | undefined): boolean =>
  obj(dev?.product_data)?.product_archetype === 'plug';

/** The bridge's resources as last seen, updated by events. */
export class HueModel {
  readonly #byId = new Map<string, HueResource>();

  load(all: HueResource[]): void {
    this.#byId.clear();
    for (const r of all) this.#byId.set(r.id, r);
  }
  get(id: string): HueResource | undefined {
    return this.#byId.get(id);
  }
  ofType(type: string): HueResource[] {
    return [...this.#byId.values()].filter((r) => r.type === type);
  }

  /** Applies one event's resources; returns the resources as they now are. */
  apply(event: HueEvent): HueResource[] {
    const out: HueResource[] = [];
    for (const d of event.data) {
      if (typeof d?.id !== 'string') continue;
      if (event.type === 'delete') {
        this.#byId.delete(d.id);
        continue;
      }
      const known = this.#byId.get(d.id);
      if (known && event.type === 'update') deepMerge(known, d);
      else this.#byId.set(d.id, structuredClone(d));
      out.push(this.#byId.get(d.id) as HueResource);
    }
    return out;
  }

  devices(): DeviceInfo[] {
    const out: DeviceInfo[] = [];
    for (const light of this.ofType('light')) {
      const dev = this.#byId.get(refs([light.owner])[0]?.rid ?? '');
      const capabilities = lightCapabilities(light);
      out.push({
        protocolid: light.id,
        kind: obj(light.dimming) ? 'dimmable' : 'binary',
        name: nameOf(light) ?? nameOf(dev) ?? light.id,
        ...(capabilities ? { capabilities } : {}),
        ...(isPlug(dev) ? { plug: true } : {}),
      });
    }
    for (const group of [...this.ofType('room'), ...this.ofType('zone')]) {
      const gl = refs(group.services).find((s) => s.rtype === 'grouped_light');
      if (gl)
        out.push({ protocolid: GROUP_PREFIX + gl.rid, kind: 'dimmable', name: nameOf(group) ?? group.id });
    }
    const sensors = new Map<string, Set<string>>();
    for (const r of this.#byId.values()) {
      if (!SENSOR_TYPES.has(r.type)) continue;
      const owner = refs([r.owner])[0]?.rid;
      if (!owner) continue;
      const events = sensors.get(owner) ?? new Set<string>();
      for (const e of sensorEventNames(r)) events.add(e);
      sensors.set(owner, events);
    }
    for (const [id, events] of sensors) {
      out.push({
        protocolid: id,
        kind: 'sensor',
        name: nameOf(this.#byId.get(id)) ?? id,
        events: [...events],
      });
    }
    return out;
  }

  /** The room or zone whose grouped_light this is, and the lights in it. */
  groupLights(groupedLightId: string): HueResource[] {
    const gl = this.#byId.get(groupedLightId);
    const owner = this.#byId.get(refs([gl?.owner])[0]?.rid ?? '');
    const out: HueResource[] = [];
    for (const c of refs(owner?.children)) {
      const child = this.#byId.get(c.rid);
      if (child?.type === 'light') out.push(child);
      for (const s of refs(child?.services)) {
        const l = this.#byId.get(s.rid);
        if (s.rtype === 'light' && l) out.push(l);
      }
    }
    return out;
  }

  /**
   * The grouped_light of the room or zone whose lights are exactly `lightIds`, if there is one: a Hearth
   * group made of those lights can then be switched with one group command.
   */
  groupedLightFor(lightIds: ReadonlySet<string>): string | undefined {
    if (lightIds.size === 0) return undefined;
    for (const group of [...this.ofType('room'), ...this.ofType('zone')]) {
      const gl = refs(group.services).find((s) => s.rtype === 'grouped_light')?.rid;
      if (!gl) continue;
      const lights = new Set(this.groupLights(gl).map((l) => l.id));
      if (lights.size === lightIds.size && [...lightIds].every((id) => lights.has(id))) return gl;
    }
    return undefined;
  }

  /**
   * The bridge's scenes for Hearth: named `<room or zone>: <scene>` (every room has its own "Bright"),
   * with what each action sets per light.
   */
  deviceScenes(): DeviceScene[] {
    return this.ofType('scene').map((s) => {
      const group = nameOf(this.#byId.get(refs([s.group])[0]?.rid ?? ''));
      const name = nameOf(s) ?? s.id;
      const state: DeviceScene['state'] = [];
      for (const a of Array.isArray(s.actions) ? s.actions : []) {
        const target = refs([obj(a)?.target])[0];
        const action = obj(obj(a)?.action);
        if (target?.rtype !== 'light' || !action) continue;
        state.push({ protocolid: target.rid, ...lightState({ ...action, id: target.rid, type: 'light' }) });
      }
      return { id: s.id, name: group ? `${group}: ${name}` : name, state };
    });
  }

  scenes(): Array<{ id: string; name: string; group: string | undefined }> {
    return this.ofType('scene').map((s) => ({
      id: s.id,
      name: nameOf(s) ?? s.id,
      group: nameOf(this.#byId.get(refs([s.group])[0]?.rid ?? '')),
    }));
  }
}

function sensorEventNames(r: HueResource): string[] {
  if (r.type === 'button') {
    const control = obj(r.metadata)?.control_id ?? 1;
    return BUTTON_EVENTS.map((e) => `${control}_${e}`);
  }
  if (r.type === 'relative_rotary') return ['rotate_cw', 'rotate_ccw'];
  if (r.type === 'motion') return ['motion', 'no_motion'];
  if (r.type === 'contact') return ['open', 'closed'];
  return [];
}

/** The sensor event an updated button/rotary/motion/contact resource stands for, if any. */
export function sensorEvent(r: HueResource, change: Obj): { protocolid: string; event: string } | null {
  const owner = refs([r.owner])[0]?.rid;
  if (!owner || !SENSOR_TYPES.has(r.type)) return null;
  let event: string | undefined;
  if (r.type === 'button') {
    const b = obj(change.button);
    const e = obj(b?.button_report)?.event ?? b?.last_event;
    if (typeof e === 'string') event = `${obj(r.metadata)?.control_id ?? 1}_${e}`;
  } else if (r.type === 'relative_rotary') {
    const rr = obj(change.relative_rotary);
    const dir = obj(obj(rr?.rotary_report ?? rr?.last_event)?.rotation)?.direction;
    if (dir === 'clock_wise') event = 'rotate_cw';
    else if (dir === 'counter_clock_wise') event = 'rotate_ccw';
  } else if (r.type === 'motion') {
    const m = obj(change.motion)?.motion ?? obj(obj(change.motion)?.motion_report)?.motion;
    if (typeof m === 'boolean') event = m ? 'motion' : 'no_motion';
  } else if (r.type === 'contact') {
    const s = obj(change.contact_report)?.state;
    if (s === 'contact') event = 'closed';
    else if (s === 'no_contact') event = 'open';
  }
  return event ? { protocolid: owner, event } : null;
}

export function lightCapabilities(light: HueResource): LightCapabilities | undefined {
  const caps: LightCapabilities = {};
  const schema = obj(obj(light.color_temperature)?.mirek_schema);
  if (typeof schema?.mirek_minimum === 'number' && typeof schema.mirek_maximum === 'number') {
    caps.ct = { min: schema.mirek_minimum, max: schema.mirek_maximum };
  }
  const gamut = gamutOf(light);
  if (gamut) caps.xy = { gamut };
  return caps.ct || caps.xy ? caps : undefined;
}

function gamutOf(light: HueResource): Gamut | undefined {
  const g = obj(obj(light.color)?.gamut);
  const pt = (p: unknown): Xy | undefined => {
    const o = obj(p);
    return typeof o?.x === 'number' && typeof o.y === 'number' ? [o.x, o.y] : undefined;
  };
  const r = pt(g?.red);
  const gr = pt(g?.green);
  const b = pt(g?.blue);
  return r && gr && b ? [r, gr, b] : undefined;
}

/** A light's (or grouped light's) state on the API's scale. `on` is false exactly when bri is 0. */
export function lightState(r: HueResource): LightState {
  const on = obj(r.on)?.on === true;
  const pct = obj(r.dimming)?.brightness;
  const bri = on ? (typeof pct === 'number' ? Math.max(1, percentToBri(pct)) : 255) : 0;
  const state: LightState = { on, bri };
  const ct = obj(r.color_temperature);
  const xy = obj(obj(r.color)?.xy);
  if (typeof ct?.mirek === 'number' && ct.mirek_valid !== false) {
    state.ct = ct.mirek;
    state.colormode = 'ct';
  }
  if (typeof xy?.x === 'number' && typeof xy.y === 'number') {
    state.xy = [xy.x, xy.y];
    if (state.colormode === undefined) state.colormode = 'xy';
  }
  return state;
}

/**
 * The PUT body for a command. Off is only `on:false` (the bridge keeps the brightness for the next on);
 * brightness never goes under the light's `min_dim_level`; mirek is clamped to the light's range and xy
 * clipped into its gamut.
 */
export function commandBody(
  cmd: LightCommand,
  light: HueResource | undefined,
  binary: boolean,
): Record<string, unknown> {
  const body: Record<string, unknown> = { on: { on: cmd.on && cmd.bri > 0 } };
  if (cmd.on && cmd.bri > 0 && !binary) {
    const min = obj(light?.dimming)?.min_dim_level;
    body.dimming = { brightness: Math.max(typeof min === 'number' ? min : 0, briToPercent(cmd.bri)) };
  }
  const caps = light ? lightCapabilities(light) : undefined;
  if (cmd.xy && cmd.colormode !== 'ct' && (!light || caps?.xy)) {
    const xy = caps?.xy ? clipToGamut(cmd.xy, caps.xy.gamut) : cmd.xy;
    body.color = { xy: { x: xy[0], y: xy[1] } };
  } else if (typeof cmd.ct === 'number' && (!light || caps?.ct)) {
    body.color_temperature = {
      mirek: caps?.ct ? clamp(Math.round(cmd.ct), caps.ct.min, caps.ct.max) : Math.round(cmd.ct),
    };
  }
  if (typeof cmd.transition === 'number') body.dynamics = { duration: Math.round(cmd.transition * 1000) };
  return body;
}

function deepMerge(target: Obj, patch: Obj): void {
  for (const [k, v] of Object.entries(patch)) {
    const t = target[k];
    const vo = obj(v);
    const to = obj(t);
    if (vo && to) deepMerge(to, vo);
    else target[k] = v;
  }
}
