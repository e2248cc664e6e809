/**
 * Attribute reports to Hearth's light state: each device's last known attributes, with reports that arrive
 * together (level then on/off after a move-to-level-with-on/off) merged into one state report.
 */
import { type LightState, level254ToBri, zclToXy } from '../lighting/index.ts';
import { Attr, Cluster } from './zcl/clusters.ts';
import type { AttrRecord } from './zcl/foundation.ts';

export interface Attrs {
  on?: boolean;
  level?: number;
  ct?: number;
  x?: number;
  y?: number;
  mode?: number;
}

/** Folds attribute records of one cluster into `a`; true when something a light state shows changed. */
export function applyRecords(a: Attrs, cluster: number, records: AttrRecord[]): boolean {
  let changed = false;
  const set = <K extends keyof Attrs>(k: K, v: Attrs[K]) => {
    if (a[k] !== v) changed = true;
    a[k] = v;
  };
  for (const r of records) {
    if (cluster === Cluster.ON_OFF && r.attr === Attr.ON_OFF) set('on', r.value === true || r.value === 1);
    else if (cluster === Cluster.LEVEL && r.attr === Attr.LEVEL_CURRENT && typeof r.value === 'number')
      set('level', r.value);
    else if (cluster === Cluster.COLOR && typeof r.value === 'number') {
      if (r.attr === Attr.COLOR_TEMP) set('ct', r.value);
      else if (r.attr === Attr.COLOR_X) set('x', r.value);
      else if (r.attr === Attr.COLOR_Y) set('y', r.value);
      else if (r.attr === Attr.COLOR_MODE) set('mode', r.value);
    }
  }
  return changed;
}

/** spec: bri 0..255 and on is false exactly when bri is 0. A light with no level is at full when on. */
export function toLightState(a: Attrs): LightState | null {
  if (a.on === undefined) return null;
  const bri = a.on ? Math.max(1, level254ToBri(a.level ?? 254)) : 0;
  const s: LightState = { on: bri > 0, bri };
  if (a.ct !== undefined && a.ct > 0) s.ct = a.ct;
  if (a.x !== undefined && a.y !== undefined) s.xy = zclToXy(a.x, a.y);
  // ZCL ColorMode: 0 hue/saturation, 1 xy, 2 colour temperature.
  if (a.mode === 1 && s.xy) s.colormode = 'xy';
  else if (a.mode === 2 && s.ct) s.colormode = 'ct';
  return s;
}
