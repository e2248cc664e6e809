/**
 * Embedded broker throughput next to Debian's mosquitto, with the same mqtt.js clients: QoS 0, one
 * publisher, one subscriber, 64-byte payloads, both clients logged in with a device credential that may use
 * `bench/#`. Each broker runs in its own process, as in production: Hearth's is the built hub started
 * exactly as the systemd unit starts it (`dist/core/cli/main.js start`, every plugin on, so every message
 * passes the plugins' ACL hooks), mosquitto with a password file and an ACL file granting the same topics.
 * With `taskset` both brokers run on the last core and the clients (this process) on the others, so the
 * load generator never takes CPU from the broker it measures (`BENCH_PIN=0` turns it off). The publisher
 * keeps at most WINDOW messages in flight so no broker has to drop or buffer without bound. Best of ROUNDS
 * per broker, the brokers measured alternately so load from elsewhere on the machine hits both alike.
 *
 * Also prints each broker process' CPU time per message (from /proc, every thread), which varies far
 * less with the machine's load than msgs/s does; how busy that kept the broker and the clients (CPU per
 * message × msgs/s: a broker well under 100 % was waiting for something); and how many ACKs the kernel
 * delayed in the round (a Nagle sender waits for those).
 *
 *   npm run bench:broker                       the hub against mosquitto
 *   BENCH_BROKER=bare npm run bench:broker     createBroker() alone (aedes and the core, no plugin hooks)
 *   BENCH_BROKER_PROF=<dir> npm run bench:broker   the hub also writes a --cpu-prof profile into <dir>
 *   BENCH_BROKER_NODE_FLAGS='…' npm run bench:broker  other Node flags for the hub than the unit's
 *   BENCH_BROKER_BASELINE=<dir> npm run bench:broker  also the hub of another checkout (an older commit
 *                                 unpacked in <dir> with this node_modules linked), in the same rounds
 *
 * `npm run bench:core` imports benchBroker(); `npm run bench` reads the printed figures.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import pino from 'pino';
import { createBroker } from '../../core/mqtt/broker.ts';
import { MOSQUITTO, mosquitto } from '../../test/core/broker-fixtures.ts';
import { pinLoadGenerator, pinningNote, pinServer } from './pin.ts';
import { cpuMicros } from './proc-cpu.ts';

const root = path.resolve(import.meta.dirname, '../..');
const MESSAGES = 40_000;
const WARMUP = 5_000;
const WINDOW = 1_000;
const ROUNDS = 3;
const LIMIT_MS = 20_000;
const PAYLOAD = Buffer.alloc(64, 'x');
const TOPIC = 'bench/t';
const USERNAME = 'bench';
const ADMIN_KEY = 'bench-broker-admin-key-0123456789';
/** The Node flags of `systemd/hearth.service`. */
const SYSTEMD_FLAGS = ['--max-semi-space-size=2', '--max-old-space-size=128'];

interface Target {
  name: string;
  url: string;
  pid: number | undefined;
  login: Pick<IClientOptions, 'username' | 'password'>;
}
interface Figures {
  msgsPerSec: number;
  cpuMicrosPerMsg: number;
  /** This process' CPU per message (the two mqtt.js clients): the load generator's own cost. */
  clientCpuMicrosPerMsg: number;
  /**
   * ACKs the kernel delayed during the round (the machine's TcpExt DelayedACKs: other loopback traffic
   * counts too). A sender with Nagle on waits for each of them when it has a small segment to send.
   */
  delayedAcks: number;
}
interface Server {
  target: Target;
  stop(): Promise<void>;
}

/** Publishes `count` messages and waits for all of them (0 msgs/s when the time limit hit first). */
async function measure(target: Target, count: number): Promise<Figures> {
  const opts = { reconnectPeriod: 0, ...target.login };
  const sub: MqttClient = await mqtt.connectAsync(target.url, opts);
  const pub: MqttClient = await mqtt.connectAsync(target.url, opts);
  try {
    const [granted] = await sub.subscribeAsync(TOPIC, { qos: 0 });
    if (granted?.qos !== 0) throw new Error(`${target.name} refused the subscription to ${TOPIC}`);
    let received = 0;
    let sent = 0;
    let wake: (() => void) | null = null;
    const finished = new Promise<boolean>((resolve) => {
      const limit = setTimeout(() => resolve(false), LIMIT_MS);
      sub.on('message', () => {
        received++;
        if (received === count) {
          clearTimeout(limit);
          resolve(true);
        }
        if (wake && sent - received <= WINDOW / 2) {
          wake();
          wake = null;
        }
      });
    });
    const cpuBefore = cpuMicros(target.pid);
    const clientBefore = process.cpuUsage();
    const acks0 = delayedAcks();
    const started = process.hrtime.bigint();
    while (sent < count) {
      if (sent - received >= WINDOW) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
      pub.publish(TOPIC, PAYLOAD, { qos: 0 });
      sent++;
    }
    const complete = await finished;
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const cpu = cpuMicros(target.pid) - cpuBefore;
    const client = process.cpuUsage(clientBefore);
    return {
      msgsPerSec: complete ? Math.round(count / seconds) : 0,
      cpuMicrosPerMsg: Math.round((cpu / count) * 10) / 10,
      clientCpuMicrosPerMsg: Math.round(((client.user + client.system) / count) * 10) / 10,
      delayedAcks: delayedAcks() - acks0,
    };
  } finally {
    await Promise.all([sub.endAsync(true), pub.endAsync(true)]);
  }
}

/** The kernel's count of delayed ACKs so far (/proc/net/netstat, TcpExt); NaN where it is absent. */
function delayedAcks(): number {
  try {
    const [names, values] = readFileSync('/proc/net/netstat', 'utf8').split('\n');
    return Number(values?.split(' ')[names?.split(' ').indexOf('DelayedACKs') ?? -1]);
  } catch {
    return Number.NaN;
  }
}
/** How busy a round kept the broker (or the clients' process): CPU per message × messages per second. */
const busy = (f: Figures, clients = false): number =>
  Math.round(((clients ? f.clientCpuMicrosPerMsg : f.cpuMicrosPerMsg) * f.msgsPerSec) / 1e4);

/** JSON over HTTP to the hub's admin listener. */
async function admin(base: string, method: string, route: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN_KEY}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${text.slice(0, 200)}`);
  return text ? JSON.parse(text) : {};
}

/**
 * The built hub as systemd runs it, on a fresh data dir, with a device credential for `bench/#`; `dir` is
 * the checkout to build and run (another one for a baseline).
 */
async function spawnHub(dir = root, name = 'hearth'): Promise<Server> {
  execFileSync(process.execPath, ['scripts/build.mjs'], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-bench-broker-'));
  const prof = process.env.BENCH_BROKER_PROF;
  const child = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_BROKER_NODE_FLAGS?.split(' ').filter(Boolean) ?? SYSTEMD_FLAGS),
      ...(prof ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(prof)}`] : []),
      'dist/core/cli/main.js',
      'start',
    ],
    {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        HEARTH_DATA_DIR: dataDir,
        HEARTH_HOST: '127.0.0.1',
        HEARTH_PORT: '0',
        HEARTH_ADMIN_PORT: '0',
        HEARTH_MQTT_PORT: '0',
        HEARTH_PLUGINS__AUTH__PORT: '0',
        HEARTH_LOG_LEVEL: 'info',
        HEARTH_ADMIN_KEY: ADMIN_KEY,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const exited = once(child, 'exit');
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const banner = await readBanner(child);
    const find = (re: RegExp) => {
      const m = re.exec(banner);
      if (!m?.[1]) throw new Error(`not in the hub's banner: ${re}`);
      return m[1];
    };
    const adminUrl = find(/admin\s+(http:\S+)/);
    const port = Number(find(/mqtt\s+mqtt:\/\/.*?:(\d+)/));
    const sites = (await admin(adminUrl, 'GET', '/admin/sites')) as
      | Array<{ siteid: string }>
      | { sites: Array<{ siteid: string }> };
    const site = (Array.isArray(sites) ? sites : sites.sites)[0]?.siteid;
    const cred = (await admin(adminUrl, 'POST', '/admin/mqtt/credentials', {
      username: USERNAME,
      site,
      topics: ['bench/#'],
    })) as { password: string };
    if (child.pid !== undefined) pinServer(child.pid);
    return {
      target: {
        name,
        url: `mqtt://127.0.0.1:${port}`,
        pid: child.pid,
        login: { username: USERNAME, password: cred.password },
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The hub prints its listeners once ready; later log lines are read away so the pipe never fills. */
function readBanner(child: ChildProcess): Promise<string> {
  let out = '';
  return new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`hub exited (${code}) before it was ready`)));
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      if (/\/site\/\S+/.test(out)) resolve(out);
    });
  });
}

/** createBroker() alone in a child process (this file with --serve): aedes and the core, no plugins. */
async function spawnBare(): Promise<Server> {
  const self = fileURLToPath(import.meta.url);
  const child = spawn(process.execPath, ['--import', 'tsx', self, '--serve'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  if (child.pid !== undefined) pinServer(child.pid);
  return {
    target: {
      name: 'bare',
      url: `mqtt://127.0.0.1:${Number.parseInt(line.toString(), 10)}`,
      pid: child.pid,
      login: {},
    },
    async stop() {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

async function spawnMosquitto(password: string): Promise<Server | null> {
  if (!existsSync(MOSQUITTO)) {
    console.warn(`broker bench: ${MOSQUITTO} is absent; no mosquitto figure (apt-get install -y mosquitto)`);
    return null;
  }
  const mosq = await mosquitto({ username: USERNAME, password }, undefined, ['bench/#']);
  const pid = mosq.pid();
  if (pid !== undefined) pinServer(pid);
  return {
    target: { name: 'mosquitto', url: mosq.url, pid, login: { username: USERNAME, password } },
    stop: () => mosq.cleanup(),
  };
}

export async function benchBroker(): Promise<Record<string, number>> {
  const ours = process.env.BENCH_BROKER === 'bare' ? await spawnBare() : await spawnHub();
  const theirs = await spawnMosquitto(String(ours.target.login.password ?? 'bench-password')).catch(
    async (err: unknown) => {
      await ours.stop();
      throw err;
    },
  );
  const baselineDir = process.env.BENCH_BROKER_BASELINE;
  const baseline = baselineDir ? await spawnHub(path.resolve(baselineDir), 'baseline') : null;
  const release = pinLoadGenerator();
  const loadBefore = loadavg();
  try {
    const targets = [ours.target];
    if (theirs) targets.push(theirs.target);
    if (baseline) targets.push(baseline.target);
    for (const target of targets) await measure(target, WARMUP);
    const best: Figures[] = targets.map(() => ({
      msgsPerSec: 0,
      cpuMicrosPerMsg: Number.POSITIVE_INFINITY,
      clientCpuMicrosPerMsg: Number.POSITIVE_INFINITY,
      delayedAcks: 0,
    }));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, target] of targets.entries()) {
        const run = await measure(target, MESSAGES);
        console.error(
          `  ${target.name} round ${round + 1}: ${run.msgsPerSec} msgs/s, ${run.cpuMicrosPerMsg} µs CPU per message` +
            ` (broker ${busy(run)} % of a core; clients ${run.clientCpuMicrosPerMsg} µs per message, ${busy(run, true)} %;` +
            ` ${run.delayedAcks} delayed ACKs)`,
        );
        const top = best[i]!;
        top.msgsPerSec = Math.max(top.msgsPerSec, run.msgsPerSec);
        top.cpuMicrosPerMsg = Math.min(top.cpuMicrosPerMsg, run.cpuMicrosPerMsg);
        top.clientCpuMicrosPerMsg = Math.min(top.clientCpuMicrosPerMsg, run.clientCpuMicrosPerMsg);
      }
    }
    const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
    console.error(
      `  ${ours.target.name} vs mosquitto${pinningNote()}; load average ${load(loadBefore)} → ${load(loadavg())}`,
    );
    const [hearth, peer] = best as [Figures, Figures | undefined];
    const before = baseline ? best[targets.indexOf(baseline.target)] : undefined;
    if (before)
      console.error(
        `  baseline (${baselineDir}): ${before.msgsPerSec} msgs/s, ${before.cpuMicrosPerMsg} µs CPU per message`,
      );
    const figures: Record<string, number> = {
      embeddedMsgsPerSec: hearth.msgsPerSec,
      embeddedCpuMicrosPerMsg: hearth.cpuMicrosPerMsg,
    };
    if (!peer) return figures;
    return {
      ...figures,
      mosquittoMsgsPerSec: peer.msgsPerSec,
      mosquittoCpuMicrosPerMsg: peer.cpuMicrosPerMsg,
      embeddedToMosquittoRatio:
        peer.msgsPerSec > 0 ? Math.round((hearth.msgsPerSec / peer.msgsPerSec) * 100) / 100 : 0,
    };
  } finally {
    release();
    await baseline?.stop();
    await ours.stop();
    await theirs?.stop();
  }
}

/** Child mode: serve the embedded broker on an ephemeral port, print the port, stop on SIGTERM. */
async function serve(): Promise<void> {
  const broker = await createBroker({
    host: '127.0.0.1',
    port: 0,
    allowAnonymous: true,
    external: null,
    log: pino({ level: 'warn' }),
  });
  process.stdout.write(`${broker.port}\n`);
  process.once('SIGTERM', () => {
    broker.stop().then(() => process.exit(0));
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv.includes('--serve')) {
    await serve();
  } else {
    const figures = await benchBroker();
    for (const [name, value] of Object.entries(figures)) console.log(`${name}: ${value}`);
  }
}
