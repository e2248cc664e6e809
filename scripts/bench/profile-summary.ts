/**
 * Summarises a V8 CPU profile (`node --cpu-prof`, or `BENCH_CPU_PROF=<dir>` with the lighting bench):
 * busy time by module (self time), the functions with the most self time, and the inclusive time of the
 * functions named with `--incl` (the time spent in them and everything they called).
 *
 *   node --import tsx scripts/bench/profile-summary.ts <file.cpuprofile> [--skip-s 2] [--until-s 9] [--top 40] [--incl name,...]
 *
 * `--skip-s` and `--until-s` keep a window of the run (leaving out start-up and set-up), so the figures
 * describe the load.
 */
import { readProfile, selfTimes } from '../lib/cpu-profile.ts';

const args = process.argv.slice(2);
const file = args[0];
if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [--skip-s N] [--top N] [--incl a,b]');
const opt = (name: string) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
};
const skipUs = Number(opt('skip-s') ?? 0) * 1e6;
const untilUs = Number(opt('until-s') ?? Number.POSITIVE_INFINITY) * 1e6;
const top = Number(opt('top') ?? 40);
const incl = (opt('incl') ?? '').split(',').filter(Boolean);

const profile = readProfile(file);
const { byId, parent } = profile;

/** Where a frame's code lives: a package, a Node internal area, a repository folder, or V8's own. */
function moduleOf(url: string, name: string): string {
  if (!url) return `(${name || 'native'})`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const internal = /^node:internal\/([^/]+(?:\/[^/]+)?)/.exec(url);
  if (internal) return `node:${internal[1]!.replace(/\.js$/, '')}`;
  if (url.startsWith('node:')) return url;
  const repo = /\/((?:core|plugins|drivers|scripts)\/[^?]*)/.exec(url);
  if (repo) return repo[1]!.replace(/\/[^/]*$/, '/');
  return url;
}

const { self, busyUs: busy, idleUs } = selfTimes(profile, skipUs, untilUs);
const counted = busy + idleUs;
const pctOf = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)} %`;
const msOf = (us: number) => `${(us / 1000).toFixed(0).padStart(6)} ms`;

const byModule = new Map<string, number>();
const byFunction = new Map<string, number>();
for (const [id, us] of self) {
  const f = byId.get(id)!.callFrame;
  if (f.functionName === '(idle)') continue;
  const mod = moduleOf(f.url, f.functionName);
  byModule.set(mod, (byModule.get(mod) ?? 0) + us);
  const key = `${f.functionName || '(anonymous)'}  ${mod}:${f.lineNumber + 1}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
}
console.log(`${file}: ${msOf(counted)} sampled, ${msOf(busy)} busy (idle left out)`);
console.log('\nself time by module');
for (const [m, us] of [...byModule].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(`${msOf(us)} ${pctOf(us)}  ${m}`);
console.log('\nself time by function');
for (const [f, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(`${msOf(us)} ${pctOf(us)}  ${f}`);

/** The functions with the most inclusive time: each sample counts once for every distinct frame on its stack. */
const total = new Map<string, number>();
for (const [id, us] of self) {
  if (byId.get(id)?.callFrame.functionName === '(idle)') continue;
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const f = byId.get(at)!.callFrame;
    if (f.functionName === '(root)') continue;
    const key = `${f.functionName || '(anonymous)'}  ${moduleOf(f.url, f.functionName)}:${f.lineNumber + 1}`;
    if (seen.has(key)) continue;
    seen.add(key);
    total.set(key, (total.get(key) ?? 0) + us);
  }
}
console.log('\ninclusive time by function');
for (const [f, us] of [...total].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(`${msOf(us)} ${pctOf(us)}  ${f}`);

if (incl.length > 0) {
  console.log('\ninclusive time (a sample counts once however deep the name recurs)');
  for (const name of incl) {
    let us = 0;
    for (const [id, t] of self) {
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        if (byId.get(at)?.callFrame.functionName === name) {
          us += t;
          break;
        }
      }
    }
    console.log(`${msOf(us)} ${pctOf(us)}  ${name}`);
  }
}
