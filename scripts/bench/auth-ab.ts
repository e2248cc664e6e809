// `node --import tsx scripts/bench/auth-ab.ts DIST_A DIST_B`: client-credentials issuance of two Hearth
// bundles (e.g. the commit before a change and after it) in one run, both hubs up at once on the server
// core, loaded in alternation (BENCH_ROUNDS rounds, default 4, of BENCH_SECONDS, default 4), so load from
// elsewhere on a shared machine falls on both alike. Prints each round's tokens/s and the server's CPU per
// token (/proc), then the median CPU per token of each and their ratio. BENCH_RATE=n: n requests a second
// in all instead of saturating (on a loaded machine the servers' batch sizes then stay alike).
import autocannon from 'autocannon';
import { type Server, spawnHearth } from './auth-hearth.ts';
import { pinLoadGenerator, pinningNote } from './pin.ts';
import { cpuMicros } from './proc-cpu.ts';

const [distA, distB] = process.argv.slice(2);
if (!distA || !distB) throw new Error('usage: auth-ab.ts DIST_A DIST_B');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const RATE = process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : undefined;

async function round(s: Server): Promise<{ rps: number; cpu: number }> {
  const t = s.target;
  const before = cpuMicros(s.pid);
  const r = await autocannon({
    url: t.tokenUrl,
    method: 'POST',
    connections: 50,
    duration: SECONDS,
    ...(RATE ? { overallRate: RATE } : {}),
    headers: {
      authorization: `Basic ${Buffer.from(`${t.clientId}:${t.secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: `grant_type=client_credentials&resource=${encodeURIComponent(t.resource)}&scope=lights%3Aread`,
  });
  if (r.non2xx > 0) throw new Error(`${r.non2xx} non-2xx answers`);
  return {
    rps: Math.round(r.requests.average),
    cpu: Math.round((cpuMicros(s.pid) - before) / r.requests.total),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

pinLoadGenerator();
const servers = { A: await spawnHearth(distA), B: await spawnHearth(distB) };
console.log(
  `A ${distA}, B ${distB}: ${ROUNDS} alternating rounds of ${SECONDS} s, 50 connections${pinningNote()}`,
);
const cpu: Record<'A' | 'B', number[]> = { A: [], B: [] };
try {
  for (const s of Object.values(servers)) await round(s); // warm-up (JIT)
  for (let i = 1; i <= ROUNDS; i++) {
    for (const name of i % 2 ? (['A', 'B'] as const) : (['B', 'A'] as const)) {
      const r = await round(servers[name]);
      cpu[name].push(r.cpu);
      console.log(`round ${i} ${name}: ${r.rps} tokens/s, server CPU ${r.cpu} µs/token`);
    }
  }
} finally {
  await Promise.all(Object.values(servers).map((s) => s.stop()));
}
const [a, b] = [median(cpu.A), median(cpu.B)];
console.log(`median server CPU per token: A ${a} µs, B ${b} µs (B/A ${(b / a).toFixed(2)})`);
