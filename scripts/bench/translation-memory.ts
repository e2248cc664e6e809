/**
 * Translation memory lookups (the matcher alone, no HTTP): exact, fuzzy hit and fuzzy miss at the default
 * threshold 75, over memories of 10,000 and 100,000 sentence-like segments, from two vocabularies: 50
 * words (the worst case for a trigram index: every trigram is common, a miss still shares many) and
 * 5,000 made-up words drawn with a skew like real text. Wall time per lookup (p50/p99) and the mean CPU
 * time per lookup (on a loaded machine the CPU time is the steadier figure).
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

/** 5,000 made-up words of 2–10 letters. */
function wideVocabulary(): string[] {
  const next = rng(5000);
  return Array.from({ length: 5000 }, () =>
    Array.from({ length: 2 + Math.floor(next() * 9) }, () =>
      String.fromCharCode(97 + Math.floor(next() * 26)),
    ).join(''),
  );
}

type Vocabulary = { name: string; words: string[]; pick: (next: () => number) => number };

const VOCABULARIES: Vocabulary[] = [
  { name: '50 words', words: WORDS, pick: (next) => Math.floor(next() * WORDS.length) },
  // Squaring skews the draw towards the first words, as frequent words dominate real sentences.
  { name: '5,000 words', words: wideVocabulary(), pick: (next) => Math.floor(next() ** 2 * 5000) },
];

function sentence(next: () => number, vocabulary: Vocabulary): string {
  const n = 4 + Math.floor(next() * 14);
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(vocabulary.words[vocabulary.pick(next)] as string);
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

/** Wall times in µs, sorted, and the mean CPU time per lookup in µs. */
function time(queries: string[], index: MatchIndex): { wall: number[]; cpu: number } {
  const times: number[] = [];
  const cpu0 = process.cpuUsage();
  for (const q of queries) {
    const t0 = performance.now();
    index.best(q, 75);
    times.push((performance.now() - t0) * 1000);
  }
  const cpu = process.cpuUsage(cpu0);
  return { wall: times.sort((a, b) => a - b), cpu: (cpu.user + cpu.system) / queries.length };
}

export function memoryLookupBench(): void {
  for (const vocabulary of VOCABULARIES) {
    for (const size of [10_000, 100_000]) {
      const next = rng(size);
      const segments = Array.from({ length: size }, () => sentence(next, vocabulary));
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
        Array.from({ length: 300 }, () => `${sentence(next, vocabulary)} zz`),
        index,
      );
      const show = (name: string, t: { wall: number[]; cpu: number }) =>
        `${name} p50 ${pct(t.wall, 50).toFixed(1)} µs p99 ${pct(t.wall, 99).toFixed(1)} µs cpu ${t.cpu.toFixed(1)} µs`;
      console.log(
        `memory lookup, ${vocabulary.name}, ${size} segments (index built in ${built.toFixed(0)} ms): ` +
          `${show('exact', exact)} | ${show('fuzzy hit', fuzzy)} | ${show('fuzzy miss', miss)}`,
      );
    }
  }
}
