// `npm run bench:log`: a hub logging at debug into a stdout nobody reads (a named pipe, like a stuck
// journald). Prints RSS before and after 20,000 logged requests, the lines dropped, and how long SIGTERM
// takes to end the process. Logging must stay bounded and the stop must not wait on the reader.
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const REQUESTS = 20000;

const rssMb = (pid: number): number => {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return Math.round((kb / 1024) * 10) / 10;
};

async function waitFor<T>(probe: () => T | null, what: string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const v = probe();
    if (v !== null) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const dir = mkdtempSync(path.join(tmpdir(), 'hearth-bench-log-'));
const fifo = path.join(dir, 'stdout');
execFileSync('mkfifo', [fifo]);
const readFd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK); // held, never read
const writeFd = openSync(fifo, constants.O_WRONLY);
const dataDir = path.join(dir, 'data');
const child = spawn(process.execPath, ['--import', 'tsx', 'core/cli/main.ts', 'start'], {
  cwd: root,
  env: {
    PATH: process.env.PATH ?? '',
    HEARTH_DATA_DIR: dataDir,
    HEARTH_HOST: '127.0.0.1',
    HEARTH_PORT: '0',
    HEARTH_ADMIN_PORT: '0',
    HEARTH_MQTT_PORT: '0',
    HEARTH_LOG__LEVEL: 'debug',
    HEARTH_ADMIN_KEY: 'bench-log-admin-key',
  },
  stdio: ['ignore', writeFd, 'inherit'],
});
closeSync(writeFd);
const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
  child.once('exit', (code) => resolve({ code, at: performance.now() })),
);
const runFile = path.join(dataDir, 'run', 'control.json');
const run = await waitFor(() => {
  try {
    return JSON.parse(readFileSync(runFile, 'utf8')) as { adminUrl: string };
  } catch {
    return null;
  }
}, 'the hub to start');
const pid = child.pid as number;
const auth = `Basic ${Buffer.from('metrics:bench-log-admin-key').toString('base64')}`;
const metric = async (name: string) => {
  const text = await (
    await fetch(new URL('/metrics', run.adminUrl), { headers: { authorization: auth } })
  ).text();
  return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);
};

const rssBefore = rssMb(pid);
// Every request is one debug access-log line (~250 bytes) into the stalled pipe.
for (let sent = 0; sent < REQUESTS; sent += 50) {
  await Promise.all(
    Array.from({ length: 50 }, () => fetch(new URL('/admin/nothing', run.adminUrl)).then((r) => r.text())),
  );
}
const rssAfter = rssMb(pid);
const dropped = await metric('hearth_log_lines_dropped_total');
const pending = await metric('hearth_log_pending_bytes');
const t0 = performance.now();
child.kill('SIGTERM');
// A hub that still runs long after its grace period would be SIGKILLed by systemd; so is it here.
const killer = setTimeout(() => child.kill('SIGKILL'), 15000);
const { code, at } = await exited;
clearTimeout(killer);
closeSync(readFd);
rmSync(dir, { recursive: true, force: true });

console.log(`requests logged at debug into an unread pipe: ${REQUESTS}`);
console.log(`RSS before: ${rssBefore} MB, after: ${rssAfter} MB`);
console.log(`log lines dropped: ${dropped}, log bytes pending: ${pending}`);
console.log(
  code === null
    ? 'SIGTERM to exit: still running after 15 s, killed'
    : `SIGTERM to exit: ${Math.round(at - t0)} ms, exit code ${code} (grace period 4500 ms)`,
);
