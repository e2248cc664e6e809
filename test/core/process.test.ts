import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SdNotify } from '../../core/lifecycle/sd-notify.ts';

const root = path.resolve(import.meta.dirname, '../..');
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

function runHub(env: Record<string, string>) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-proc-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/core/fixtures/run-hub.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HEARTH_DATA_DIR: dataDir,
      HEARTH_HOST: '127.0.0.1',
      HEARTH_PORT: '0',
      HEARTH_ADMIN_PORT: '0',
      HEARTH_MQTT_PORT: '0',
      HEARTH_STORE__COALESCE_MS: '60000',
      HEARTH_ADMIN_KEY: 'process-test-admin-key',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout?.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    out += c.toString();
  });
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (out.includes('READY-FOR-TEST')) {
        clearInterval(timer);
        resolve();
      }
    }, 20);
    child.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`hub exited early (${code}): ${out}`));
    });
  });
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    child.once('exit', (code) => resolve({ code, at: Date.now() })),
  );
  return { child, dataDir, ready, exited, output: () => out };
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
    const hub = runHub({});
    await hub.ready;
    await new Promise((r) => setTimeout(r, 300));
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
    const hub = runHub({ NOTIFY_SOCKET: n.sock, WATCHDOG_USEC: '1000000' });
    await hub.ready;
    await new Promise((r) => setTimeout(r, 1200));
    hub.child.kill('SIGTERM');
    expect((await hub.exited).code).toBe(0);
    await new Promise((r) => setTimeout(r, 200));
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
