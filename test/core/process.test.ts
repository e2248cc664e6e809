import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import {
  closeSync,
  constants,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SdNotify } from '../../core/lifecycle/sd-notify.ts';
import { exitAfterOutput, exitOnSignals } from '../../core/lifecycle/signals.ts';
import { BUILD_TIMEOUT, buildReady } from '../helpers/built.ts';
import { spawnHub } from '../helpers/hub-process.ts';

// This file's tests start children from the run's build: wait for it here, not inside a test.
beforeAll(buildReady, BUILD_TIMEOUT);

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** A hub process on a fresh data dir, its store coalescing for 60 s (only a flush writes), killed after the test. */
async function runHub(env: Record<string, string>, stdout?: number) {
  const hub = await spawnHub(
    mkdtempSync(path.join(tmpdir(), 'hearth-proc-')),
    { HEARTH_STORE__COALESCE_MS: '60000', HEARTH_ADMIN_KEY: 'process-test-admin-key', ...env },
    stdout,
  );
  children.push(hub.child);
  return hub;
}

/**
 * A named pipe standing in for journald or `| less`: the hub gets the write end, the test holds the read
 * end and reads it only when it chooses to (or closes it, like a reader that died).
 */
function stalledPipe() {
  const fifo = path.join(mkdtempSync(path.join(tmpdir(), 'hearth-fifo-')), 'stdout');
  execFileSync('mkfifo', [fifo]);
  // Non-blocking so opening the read end does not wait for a writer; the write end is the hub's own.
  const readFd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const writeFd = openSync(fifo, constants.O_WRONLY);
  let reader: net.Socket | null = null;
  return {
    writeFd,
    /** Starts reading; resolves with everything read once `until` shows up. */
    drain(until: RegExp): Promise<string> {
      reader = new net.Socket({ fd: readFd, readable: true, writable: false });
      let got = '';
      return new Promise((resolve) => {
        reader?.on('data', (c: Buffer) => {
          got += c.toString();
          if (until.test(got)) resolve(got);
        });
      });
    },
    close() {
      if (reader) reader.destroy();
      else closeSync(readFd);
    },
  };
}

async function metrics(dataDir: string): Promise<string> {
  const run = JSON.parse(readFileSync(path.join(dataDir, 'run', 'control.json'), 'utf8'));
  const auth = Buffer.from('metrics:process-test-admin-key').toString('base64');
  const res = await fetch(new URL('/metrics', run.adminUrl), { headers: { authorization: `Basic ${auth}` } });
  return res.text();
}

const metric = (text: string, name: string): number => {
  const m = new RegExp(`^${name} (\\d+(?:\\.\\d+)?)$`, 'm').exec(text);
  if (!m?.[1]) throw new Error(`no ${name} in /metrics`);
  return Number(m[1]);
};

const GRACE_MS = 4500;
/** Room for a loaded machine on top of the grace period; the hub itself must not use the grace period. */
const MARGIN_MS = 3000;

function expectFlushedState(dataDir: string) {
  // Coalescing was 60 s: only the shutdown flush can have written these.
  const state = JSON.parse(readFileSync(path.join(dataDir, 'counter.state.json'), 'utf8'));
  expect(state.stopped).toBe(true);
  expect(state.count).toBeGreaterThan(10);
  expect(existsSync(path.join(dataDir, 'hub.lock'))).toBe(false);
}

/** A unix datagram socket standing in for systemd's NOTIFY_SOCKET (Node has no AF_UNIX datagrams). */
function notifySocket() {
  const dir = mkdtempSync(path.join(tmpdir(), 'hearth-notify-'));
  const sock = path.join(dir, 'notify.sock');
  const py = spawn(
    'python3',
    [
      '-u',
      '-c',
      `import socket,sys
s=socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[1]); print('BOUND', flush=True)
while True: print(s.recv(4096).decode().replace('\\n',' '), flush=True)`,
      sock,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.push(py);
  let got = '';
  py.stdout?.on('data', (c: Buffer) => {
    got += c.toString();
  });
  const bound = new Promise<void>((resolve) => {
    const t = setInterval(() => {
      if (!got.includes('BOUND')) return;
      clearInterval(t);
      resolve();
    }, 10);
  });
  return { sock, bound, messages: () => got };
}

describe('the hub process', () => {
  it('exits 0 within 5 s of SIGTERM, with the store flushed', async () => {
    const hub = await runHub({});
    await hub.ready;
    await hub.said('COUNTER-PAST-10');
    const sent = Date.now();
    hub.child.kill('SIGTERM');
    const { code, at } = await hub.exited;
    expect(code).toBe(0);
    expect(at - sent).toBeLessThan(5000);
    // Coalescing was 60 s: only the shutdown flush can have written these.
    const state = JSON.parse(readFileSync(path.join(hub.dataDir, 'counter.state.json'), 'utf8'));
    expect(state.stopped).toBe(true);
    expect(state.count).toBeGreaterThan(10);
    expect(existsSync(path.join(hub.dataDir, 'hub.lock'))).toBe(false);
  });

  it('tells systemd READY=1, pings the watchdog and says STOPPING=1', async () => {
    const n = notifySocket();
    await n.bound;
    const hub = await runHub({ NOTIFY_SOCKET: n.sock, WATCHDOG_USEC: '1000000' });
    await hub.ready;
    // The watchdog is pinged at half its interval (500 ms here): wait for a ping, not for the time to pass.
    await expect.poll(() => n.messages(), { timeout: 10_000 }).toMatch(/WATCHDOG=1/);
    hub.child.kill('SIGTERM');
    expect((await hub.exited).code).toBe(0);
    // The datagram left before the exit; the reader may print it a moment later.
    await expect.poll(() => n.messages(), { timeout: 10_000 }).toMatch(/STOPPING=1/);
    const msgs = n.messages();
    expect(msgs).toMatch(/READY=1/);
    expect(msgs).toMatch(/WATCHDOG=1/);
    expect(msgs).toMatch(/STOPPING=1/);
    expect(msgs.indexOf('READY=1')).toBeLessThan(msgs.indexOf('STOPPING=1'));
  });

  it('sends nothing when NOTIFY_SOCKET is unset', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hearth-sd-'));
    const marker = path.join(dir, 'called');
    const fake = path.join(dir, 'fake-notify.sh');
    writeFileSync(fake, `#!/bin/sh\necho "$@" >> ${marker}\n`, { mode: 0o755 });
    await new SdNotify({ WATCHDOG_USEC: '1000000' }, fake).ready('x');
    await new SdNotify({}, fake).stopping();
    expect(existsSync(marker)).toBe(false);
    // The same calls with a socket do run the command, so the check above can fail.
    await new SdNotify({ NOTIFY_SOCKET: '/run/x' }, fake).ready('up');
    expect(readFileSync(marker, 'utf8')).toContain('READY=1 STATUS=up');
  });
});

describe('a hub whose log reader stops reading', () => {
  const flooding = { HEARTH_LOG__LEVEL: 'debug', HEARTH_TEST_FLOOD_LINES: '40000' };

  /** A hub that has logged `rounds` × 40,000 lines of ~1 kB into a pipe holding 64 kB that nobody reads. */
  async function floodedHub(rounds = 1) {
    const pipe = stalledPipe();
    const hub = await runHub(flooding, pipe.writeFd);
    await hub.ready;
    const samples: string[] = [await metrics(hub.dataDir)];
    for (let i = 1; i <= rounds; i++) {
      hub.child.kill('SIGUSR2');
      await hub.said('FLOOD-DONE', i);
      samples.push(await metrics(hub.dataDir));
    }
    return { pipe, hub, samples };
  }

  it('keeps its memory bounded and counts the dropped lines, then reports them once the reader reads', async () => {
    const { pipe, hub, samples } = await floodedHub(3);
    const [before, first, , last] = samples as [string, string, string, string];
    const dropped = metric(last, 'hearth_log_lines_dropped_total');
    expect(metric(before, 'hearth_log_lines_dropped_total')).toBe(0);
    // Nearly every line was dropped and counted, not kept.
    expect(metric(first, 'hearth_log_lines_dropped_total')).toBeGreaterThan(30000);
    expect(dropped).toBeGreaterThan(90000);
    for (const s of samples)
      expect(metric(s, 'hearth_log_pending_bytes')).toBeLessThanOrEqual(1024 * 1024 + 2048);
    // Memory is flat from one flood to the next: 80 MB more log lines did not stay in memory. (The first
    // flood is left out: the heap grows to its working size then, whatever happens to the lines.)
    const rss = (s: string) => metric(s, 'process_resident_memory_bytes');
    expect(rss(last) - rss(first)).toBeLessThan(20 * 1024 * 1024);

    const read = await pipe.drain(/lines were dropped.*\n/);
    const reports = read.split('\n').filter((l) => l.includes('lines were dropped'));
    expect(reports).toHaveLength(1);
    expect(JSON.parse(reports[0] as string).dropped).toBeGreaterThanOrEqual(dropped);
    hub.child.kill('SIGTERM');
    expect((await hub.exited).code).toBe(0);
    pipe.close();
  });

  it('stops within the grace period, data flushed, when stdout is a pipe nobody reads', async () => {
    const { pipe, hub } = await floodedHub();
    const sent = Date.now();
    hub.child.kill('SIGTERM');
    const { code, at } = await hub.exited;
    pipe.close();
    // 0, not the grace timer's 1: the stop itself finished.
    expect(code).toBe(0);
    expect(at - sent).toBeLessThan(GRACE_MS + MARGIN_MS);
    expectFlushedState(hub.dataDir);
  });

  it('stops within the grace period, data flushed, when the reader closes during the stop', async () => {
    const { pipe, hub } = await floodedHub();
    const sent = Date.now();
    hub.child.kill('SIGTERM');
    pipe.close();
    const { code, at } = await hub.exited;
    expect(code).toBe(0);
    expect(at - sent).toBeLessThan(GRACE_MS + MARGIN_MS);
    expectFlushedState(hub.dataDir);
  });
});

describe('the exit path', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A process that records exit codes instead of exiting. */
  function fakeProcess() {
    const proc = Object.assign(new EventEmitter(), { exit: vi.fn<(code: number) => void>() });
    return proc;
  }
  const silentLog = { info: vi.fn(), error: vi.fn(), fatal: vi.fn() };

  it('exits 1 when the stop outlasts the grace period, not a moment before', async () => {
    vi.useFakeTimers();
    const proc = fakeProcess();
    const err = vi.fn();
    exitOnSignals({ log: silentLog, stop: () => new Promise(() => {}) }, { graceMs: 4500, err, proc });
    proc.emit('SIGTERM');
    await vi.advanceTimersByTimeAsync(4499);
    expect(proc.exit).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(proc.exit).toHaveBeenCalledWith(1);
    expect(err).toHaveBeenCalledWith('shutdown grace period exceeded; exiting');
  });

  it('exits with the signal exit code once the stop is done; a second signal exits at once', async () => {
    vi.useFakeTimers();
    const proc = fakeProcess();
    let finish = () => {};
    const stop = () => new Promise<void>((resolve) => (finish = resolve));
    exitOnSignals({ log: silentLog, stop }, { graceMs: 4500, err: () => {}, proc });
    proc.emit('SIGTERM');
    await vi.advanceTimersByTimeAsync(1000);
    finish();
    await vi.advanceTimersByTimeAsync(0);
    expect(proc.exit).toHaveBeenCalledWith(0);

    const cli = fakeProcess();
    exitOnSignals(
      { stop: () => new Promise(() => {}) },
      { graceMs: 4500, err: () => {}, proc: cli, signalExitCode: 1 },
    );
    cli.emit('SIGINT');
    expect(cli.exit).not.toHaveBeenCalled();
    cli.emit('SIGINT');
    expect(cli.exit).toHaveBeenCalledWith(1);
  });

  it('flushes the data (stops) before exiting 1 on an uncaught exception', async () => {
    vi.useFakeTimers();
    const proc = fakeProcess();
    const order: string[] = [];
    const stop = async () => {
      order.push('stop');
    };
    proc.exit.mockImplementation(() => void order.push('exit'));
    exitOnSignals({ log: silentLog, stop }, { graceMs: 4500, err: () => {}, proc });
    proc.emit('uncaughtException', new Error('boom'));
    await vi.advanceTimersByTimeAsync(0);
    expect(order).toEqual(['stop', 'exit']);
    expect(proc.exit).toHaveBeenCalledWith(1);
  });

  it('a CLI command exits once its output is taken, and at once when the reader is gone', () => {
    const stalled = new Writable({ write: () => {}, highWaterMark: 1 });
    stalled.write('a page of output');
    const proc = { exit: vi.fn<(code: number) => void>() };
    exitAfterOutput(3, [stalled], proc);
    expect(proc.exit).not.toHaveBeenCalled();
    stalled.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    expect(proc.exit).toHaveBeenCalledWith(3);

    const idle = { exit: vi.fn<(code: number) => void>() };
    exitAfterOutput(0, [new Writable({ write: (_c, _e, done) => done() })], idle);
    expect(idle.exit).toHaveBeenCalledWith(0);
  });
});
