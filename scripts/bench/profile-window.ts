/**
 * `node --import tsx scripts/bench/profile-window.ts PROFILE [FROM TO] [N]`: where a V8 CPU profile's time
 * went, by function (self and inclusive) and by file, optionally only between FROM and TO (µs in the
 * profile's clock, as `BENCH_CPU_PROF=dir npm run bench:auth` prints them). Percentages are of the busy
 * time (idle left out), so they read as "share of the server's CPU".
 */
import { type ProfileNode, readProfile, selfTimes } from '../lib/cpu-profile.ts';

const [file, from, to, top] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-window.ts PROFILE [FROM TO] [N]');
const p = readProfile(file);
const [lo, hi] = [Number(from ?? 0), Number(to ?? Number.POSITIVE_INFINITY)];
const n = Number(top ?? 30);
const { byId, parent } = p;

const where = (x: ProfileNode): string => {
  const url = x.callFrame.url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\//, '~');
  return url ? `${url}:${x.callFrame.lineNumber + 1}` : '';
};
const label = (x: ProfileNode) => `${x.callFrame.functionName || '(anonymous)'} ${where(x)}`;

const { self, busyUs: busy, idleUs: idle } = selfTimes(p, lo, hi, 'profile');
const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
const bySelf = new Map<string, number>();
const byFile = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const [id, t] of self) {
  const x = byId.get(id)!;
  add(bySelf, label(x), t);
  add(byFile, where(x).replace(/:\d+$/, '') || x.callFrame.functionName, t);
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const k = label(byId.get(cur)!);
    if (!seen.has(k)) add(inclusive, k, t);
    seen.add(k);
  }
}
console.log(`busy ${(busy / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms`);
for (const [title, m] of [
  ['self time by function', bySelf],
  ['self time by file', byFile],
  ['inclusive time by function', inclusive],
] as const) {
  console.log(`\n${title} (% of busy)`);
  for (const [k, t] of [...m].sort((a, b) => b[1] - a[1]).slice(0, n))
    console.log(`${((100 * t) / busy).toFixed(1).padStart(5)}%  ${k}`);
}
