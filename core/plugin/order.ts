import type { AnyPlugin } from './discover.ts';

export interface Ordering {
  /** Enabled plugins whose requirements are met, dependencies first. */
  order: AnyPlugin[];
  /** Enabled plugins that cannot start, with the reason. */
  unmet: Array<{ plugin: AnyPlugin; reason: string }>;
}

/**
 * Orders enabled plugins so every `requires` and enabled `optional` plugin starts first. A plugin whose
 * requirement is missing, disabled or itself unmet is reported, as is every plugin in a cycle.
 */
export function orderPlugins(all: AnyPlugin[], enabled: (name: string) => boolean): Ordering {
  const byName = new Map(all.map((p) => [p.name, p]));
  const unmet: Ordering['unmet'] = [];
  const order: AnyPlugin[] = [];
  const state = new Map<string, 'visiting' | 'done' | 'failed'>();

  const visit = (p: AnyPlugin, trail: string[]): boolean => {
    const s = state.get(p.name);
    if (s === 'done') return true;
    if (s === 'failed') return false;
    if (s === 'visiting') {
      // Every plugin on the loop is reported with the loop, by the callers below.
      cycle ??= `dependency cycle: ${[...trail.slice(trail.indexOf(p.name)), p.name].join(' -> ')}`;
      return false;
    }
    state.set(p.name, 'visiting');
    const fail = (reason: string) => {
      unmet.push({ plugin: p, reason });
      state.set(p.name, 'failed');
      return false;
    };
    for (const dep of p.requires ?? []) {
      const d = byName.get(dep);
      if (!d) return fail(`requires plugin "${dep}", which is not installed`);
      if (!enabled(dep)) return fail(`requires plugin "${dep}", which is disabled`);
      if (!visit(d, [...trail, p.name])) return fail(cycle ?? `requires plugin "${dep}", which cannot start`);
    }
    for (const dep of p.optional ?? []) {
      const d = byName.get(dep);
      if (d && enabled(dep)) visit(d, [...trail, p.name]);
    }
    if (state.get(p.name) === 'failed') return false;
    state.set(p.name, 'done');
    order.push(p);
    return true;
  };

  let cycle: string | undefined;
  for (const p of all) {
    cycle = undefined;
    if (enabled(p.name)) visit(p, []);
  }
  return { order, unmet };
}
