/**
 * Translation memory lookups (the matcher alone, no HTTP): exact, fuzzy hit and fuzzy miss at the default
 * threshold 75, over memories of 10,000 and 100,000 sentence-like segments.
 */
import { MatchIndex } from '../../plugins/translation/memories/fuzzy.ts';

const WORDS = (
  'the a washing machine has finished dryer door window kitchen light living room is open closed ' +
  'please check temperature garden front back garage heating water leak detected battery low motion ' +
  'sensor in hallway bedroom bathroom turned on off timer minutes hours dinner ready guest arrived'
).split(' ');

/** A small deterministic generator, so runs compare. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function sentence(next: () => number): string {
  const n = 4 + Math.floor(next() * 14);
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(WORDS[Math.floor(next() * WORDS.length)] as string);
  return `${words.join(' ')} ${Math.floor(next() * 1000)}.`;
}

/** Two to three character edits (a typo-level change that still matches at 75). */
function typo(text: string, next: () => number): string {
  let out = text;
  for (let k = 0; k < 2 + Math.floor(next() * 2); k++) {
    const at = Math.floor(next() * out.length);
    out = out.slice(0, at) + 'xq'[k % 2] + out.slice(at + 1);
  }
  return out;
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

function time(queries: string[], index: MatchIndex): number[] {
  const times: number[] = [];
  for (const q of queries) {
    const t0 = performance.now();
    index.best(q, 75);
    times.push((performance.now() - t0) * 1000);
  }
  return times.sort((a, b) => a - b);
}

export function memoryLookupBench(): void {
  for (const size of [10_000, 100_000]) {
    const next = rng(size);
    const segments = Array.from({ length: size }, () => sentence(next));
    const t0 = performance.now();
    const index = new MatchIndex(segments);
    const built = performance.now() - t0;
    const pick = () => segments[Math.floor(next() * size)] as string;
    const exact = time(Array.from({ length: 2000 }, pick), index);
    const fuzzy = time(
      Array.from({ length: 300 }, () => typo(pick(), next)),
      index,
    );
    const miss = time(
      Array.from({ length: 300 }, () => `${sentence(next)} zz`),
      index,
    );
    const show = (name: string, t: number[]) =>
      `${name} p50 ${pct(t, 50).toFixed(1)} µs p99 ${pct(t, 99).toFixed(1)} µs`;
    console.log(
      `memory lookup, ${size} segments (index built in ${built.toFixed(0)} ms): ${show('exact', exact)} | ` +
        `${show('fuzzy hit', fuzzy)} | ${show('fuzzy miss', miss)}`,
    );
  }
}
