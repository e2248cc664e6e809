/**
 * `npm run bench`: runs every benchmark that has a target and prints one table: the figure, its target,
 * the peer measured in the same run, the ratio, and the figure of the last recorded run beside it, flagged
 * when more than 10 % worse. `npm run bench -- --record` also writes this run as
 * scripts/bench/recorded-<date>.json (machine, Node version, load average), the new reference; record a
 * run when a change moves a figure on purpose. `BENCH_ONLY=start,broker` runs a subset.
 * A benchmark, not a test: nothing here fails a build.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pluginsDir } from '../../core/cli/boot.ts';
import { pluginFolders } from '../../core/plugin/discover.ts';
import { benchStart } from './start.ts';

const here = import.meta.dirname;
const root = path.resolve(here, '../..');

/** One row of the table. `better` says which way is good; `peer` is the same figure of the peer. */
interface Figure {
  name: string;
  value: number;
  unit: string;
  better: 'lower' | 'higher';
  target?: number;
  peer?: { name: string; value: number };
  /** What is compared with the target when it is not `value` (a ratio against the peer). */
  ratio?: number;
}

interface Recorded {
  date: string;
  machine: { cpus: number; model: string; memoryMb: number };
  node: string;
  loadAverage: { before: number[]; after: number[] };
  figures: Figure[];
}

const load = () => os.loadavg().map((l) => Math.round(l * 100) / 100);

/** Runs `npm run bench:<name>`'s script and returns its output (the script prints its own details). */
function runScript(file: string, env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, file)], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      process.stderr.write(c);
    });
    child.once('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${file} exited with ${code}`)),
    );
  });
}

const num = (out: string, re: RegExp, what: string): number => {
  const m = re.exec(out);
  if (!m?.[1]) throw new Error(`no ${what} in the output`);
  return Number(m[1]);
};

const benches: Record<string, () => Promise<Figure[]>> = {
  async start() {
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
    const all = await benchStart();
    const off = Object.fromEntries(
      pluginFolders(pluginsDir).map((p) => [
        `HEARTH_PLUGINS__${p.replace(/-/g, '_').toUpperCase()}__ENABLED`,
        'false',
      ]),
    );
    const core = await benchStart(off, 1);
    return [
      {
        name: 'restart to /ready, every plugin (median of 3)',
        value: all.readyMs,
        unit: 'ms',
        better: 'lower',
        target: 700,
      },
      { name: 'hub CPU to /ready, every plugin', value: all.cpuMs, unit: 'ms', better: 'lower' },
      {
        name: 'first start to /ready, every plugin',
        value: all.firstReadyMs,
        unit: 'ms',
        better: 'lower',
        target: 1000,
      },
      {
        name: 'idle RSS 10 s after ready, every plugin',
        value: all.rssMb,
        unit: 'MB',
        better: 'lower',
        target: 70,
      },
      {
        name: 'idle RSS 10 s after ready, core alone',
        value: core.rssMb,
        unit: 'MB',
        better: 'lower',
        target: 60,
      },
    ];
  },
  async translation() {
    const out = await runScript('translation.ts', { BENCH_TRANSLATION_OVERHEAD_ONLY: '1' });
    const line = /1 client\(s\):([^\n]*)/.exec(out)?.[1] ?? '';
    return [
      {
        name: 'translation proxy added latency p50, 1 client',
        value: num(line, /added p50 (-?[\d.]+) ms/, 'added latency'),
        unit: 'ms',
        better: 'lower',
        target: 0.25,
        peer: { name: 'upstream alone p50', value: num(line, /direct p50 ([\d.]+) ms/, 'direct latency') },
      },
      {
        name: 'translation proxy CPU per request, 1 client',
        value: num(line, /Hearth CPU ([\d.]+) µs/, 'CPU'),
        unit: 'µs',
        better: 'lower',
      },
    ];
  },
  async lighting() {
    const out = await runScript('lighting.ts');
    const cpu = (who: string) =>
      num(out, new RegExp(`${who}:[^\\n]*server CPU ([\\d.]+) µs/req`), `${who} CPU`);
    return [
      {
        name: 'PUT /light/state req/s vs bare Koa',
        value: num(out, /hearth:\s+([\d.]+) req\/s/, 'hearth req/s'),
        unit: 'req/s',
        better: 'higher',
        target: 0.8,
        peer: { name: 'bare Koa', value: num(out, /bare koa:\s+([\d.]+) req\/s/, 'bare req/s') },
        ratio: num(out, /ratio hearth\/bare: ([\d.]+)/, 'ratio'),
      },
      {
        name: 'PUT /light/state server CPU per request',
        value: cpu('hearth'),
        unit: 'µs',
        better: 'lower',
        peer: { name: 'bare Koa', value: cpu('bare koa') },
        ratio: Math.round((cpu('bare koa') / cpu('hearth')) * 100) / 100,
      },
    ];
  },
  async broker() {
    const out = await runScript('broker.ts');
    const f = (k: string) => num(out, new RegExp(`${k}: ([\\d.]+)`), k);
    return [
      {
        name: 'embedded broker QoS 0 msgs/s',
        value: f('embeddedMsgsPerSec'),
        unit: 'msg/s',
        better: 'higher',
        target: 0.7,
        peer: { name: 'mosquitto', value: f('mosquittoMsgsPerSec') },
        ratio: f('embeddedToMosquittoRatio'),
      },
      {
        name: 'embedded broker CPU per message',
        value: f('embeddedCpuMicrosPerMsg'),
        unit: 'µs',
        better: 'lower',
        peer: { name: 'mosquitto', value: f('mosquittoCpuMicrosPerMsg') },
        ratio: Math.round((f('mosquittoCpuMicrosPerMsg') / f('embeddedCpuMicrosPerMsg')) * 100) / 100,
      },
    ];
  },
  async auth() {
    const out = await runScript('auth.ts');
    const hearth = num(out, /best rounds: hearth (\d+) tokens\/s/, 'hearth tokens/s');
    const peer = num(
      out,
      /best rounds: hearth \d+ tokens\/s, oidc-provider (\d+) tokens\/s/,
      'peer tokens/s',
    );
    const cpuH = num(out, /server CPU per token hearth ([\d.]+) µs, oidc/, 'hearth CPU');
    const cpuP = num(out, /server CPU per token hearth [\d.]+ µs, oidc-provider ([\d.]+) µs/, 'peer CPU');
    return [
      {
        name: 'client-credentials tokens/s',
        value: hearth,
        unit: 'tokens/s',
        better: 'higher',
        target: 3,
        peer: { name: 'oidc-provider', value: peer },
        ratio: Math.round((hearth / peer) * 100) / 100,
      },
      {
        name: 'client-credentials server CPU per token',
        value: cpuH,
        unit: 'µs',
        better: 'lower',
        peer: { name: 'oidc-provider', value: cpuP },
        ratio: Math.round((cpuP / cpuH) * 100) / 100,
      },
    ];
  },
  async mqtt() {
    const out = await runScript('mqtt.ts', { BENCH_LIGHTS: '100' });
    return [
      {
        // The production hub: built, in its own process, the switch and bulb in the bench's.
        name: 'switch press → bulb command p99 at 200 presses/s, hub in its own process',
        value: num(
          out,
          /switch → bulb, built hub in its own process, at 200 presses\/s[^\n]*p99 ([\d.]+) ms/,
          'press p99',
        ),
        unit: 'ms',
        better: 'lower',
        target: 1.5,
      },
      {
        // What earlier runs recorded: the hub shares the bench's event loop with the switch and the bulb.
        name: 'switch press → bulb command p99 at 200 presses/s',
        value: num(
          out,
          /switch → bulb, hub in this process, at 200 presses\/s[^\n]*p99 ([\d.]+) ms/,
          'press p99',
        ),
        unit: 'ms',
        better: 'lower',
      },
    ];
  },
};

/** Whether the figure meets its target (ratios compare the ratio, the rest the value). */
function meets(f: Figure): boolean | undefined {
  if (f.target === undefined) return undefined;
  const v = f.ratio ?? f.value;
  return f.better === 'lower' ? v <= f.target : v >= f.target;
}

function lastRecorded(): Recorded | undefined {
  const files = readdirSync(here)
    .filter((n) => /^recorded-.*\.json$/.test(n))
    .sort();
  const newest = files.at(-1);
  return newest ? (JSON.parse(readFileSync(path.join(here, newest), 'utf8')) as Recorded) : undefined;
}

const fmt = (n: number | undefined): string =>
  n === undefined || Number.isNaN(n) ? '–' : n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2);

async function main(): Promise<void> {
  const only = process.env.BENCH_ONLY?.split(',');
  const before = load();
  const figures: Figure[] = [];
  const failed: string[] = [];
  for (const [name, run] of Object.entries(benches)) {
    if (only && !only.includes(name)) continue;
    console.error(`\n== ${name} ==`);
    try {
      figures.push(...(await run()));
    } catch (err) {
      failed.push(`${name}: ${(err as Error).message}`);
    }
  }
  const after = load();
  const last = lastRecorded();
  const rows = figures.map((f) => {
    const previous = last?.figures.find((p) => p.name === f.name);
    // Ratios move with the peer as much as with Hearth: compare like with like.
    const now = f.ratio ?? f.value;
    const then = previous ? (previous.ratio ?? previous.value) : undefined;
    // Every ratio is put so that higher is better (Hearth over the peer for throughput, the peer's CPU over
    // Hearth's for cost), whichever way the figure itself goes.
    const lowerIsBetter = f.ratio === undefined && f.better === 'lower';
    const worse =
      then !== undefined && (lowerIsBetter ? now > then * 1.1 : now < then * 0.9) ? 'WORSE >10 %' : '';
    const ok = meets(f);
    return [
      f.name,
      `${fmt(f.value)} ${f.unit}`,
      f.target === undefined
        ? '–'
        : `${f.better === 'lower' ? '≤' : '≥'} ${f.target}${f.ratio !== undefined ? '×' : ` ${f.unit}`}`,
      f.peer ? `${f.peer.name} ${fmt(f.peer.value)}` : '–',
      f.ratio === undefined ? '–' : `${fmt(f.ratio)}×`,
      then === undefined ? '–' : `${fmt(then)}${previous?.ratio !== undefined ? '×' : ''}`,
      [ok === undefined ? '' : ok ? 'met' : 'MISSED', worse].filter(Boolean).join(', '),
    ];
  });
  const head = [
    'figure',
    'now',
    'target',
    'peer (same run)',
    'ratio',
    `last (${last?.date.slice(0, 10) ?? 'none'})`,
    '',
  ];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  console.log(
    `\nHearth benchmarks, ${new Date().toISOString()}, Node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}`,
  );
  console.log(
    `load average before ${before.join(' ')}, after ${after.join(' ')} (wall-clock figures are only as good as the machine was quiet)`,
  );
  console.log(line(head));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
  for (const f of failed) console.log(`not measured: ${f}`);
  if (process.argv.includes('--record')) {
    const record: Recorded = {
      date: new Date().toISOString(),
      machine: {
        cpus: os.cpus().length,
        model: os.cpus()[0]?.model ?? 'unknown',
        memoryMb: Math.round(os.totalmem() / 2 ** 20),
      },
      node: process.version,
      loadAverage: { before, after },
      figures,
    };
    const file = path.join(here, `recorded-${record.date.slice(0, 10)}.json`);
    writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
    // In the repository's own format, so `npm run lint` stays clean when the file is committed.
    try {
      execFileSync(path.join(root, 'node_modules/.bin/biome'), ['format', '--write', file], {
        stdio: 'ignore',
      });
    } catch {
      console.log('(biome could not format the recorded file; run `npm run format`)');
    }
    console.log(`recorded as ${path.relative(root, file)}`);
  }
}

await main();
