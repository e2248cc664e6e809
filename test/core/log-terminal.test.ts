/**
 * The hub's log lines as a person at a terminal and journald see them: a real hub process on a real
 * pseudo-terminal (util-linux `script`), and the same hub with stdout on a pipe.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT, buildReady, built } from '../helpers/built.ts';
import { spawnHub } from '../helpers/hub-process.ts';

// This file's tests start children from the run's build: wait for it here, not inside a test.
beforeAll(buildReady, BUILD_TIMEOUT);

const root = path.resolve(import.meta.dirname, '../..');
const SECRET = 'terminalSiteKey0123456789abcdef';
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
const env = {
  PATH: process.env.PATH ?? '',
  HEARTH_HOST: '127.0.0.1',
  HEARTH_PORT: '0',
  HEARTH_ADMIN_PORT: '0',
  HEARTH_MQTT_PORT: '0',
  // Debug: every request gets an access-log line, whose URL carries a site key to redact.
  HEARTH_LOG_LEVEL: 'debug',
};

let dirs: string[] = [];
let children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children) if (c.exitCode === null && c.pid) process.kill(-c.pid, 'SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
  children = [];
});

const dataDir = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'hearth-tty-'));
  dirs.push(d);
  return d;
};

const adminUrl = (dir: string) =>
  (JSON.parse(readFileSync(path.join(dir, 'run', 'control.json'), 'utf8')) as { adminUrl: string }).adminUrl;

async function until(what: string, test: () => boolean): Promise<void> {
  for (let i = 0; i < 1200 && !test(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!test()) throw new Error(`timed out waiting for ${what}`);
}

describe('log lines', () => {
  it('on a terminal the hub prints readable lines (time, level, source, message), not JSON; secrets stay redacted', async () => {
    const dir = dataDir();
    const hub = `${process.execPath} ${await built('test/core/fixtures/run-hub.ts')}`;
    // `script` gives the hub a pseudo-terminal as stdout and stderr, and copies what it shows to our pipe.
    const child = spawn('script', ['-qfec', hub, '/dev/null'], {
      cwd: root,
      env: { ...env, HEARTH_DATA_DIR: dir, TERM: 'xterm' },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    children.push(child);
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    await until('the hub to be ready', () => out.includes('READY-FOR-TEST'));
    const res = await fetch(`${adminUrl(dir)}/api/site/${SECRET}/light`);
    expect(res.status).toBe(404);
    await until('the access-log line', () => out.replace(ANSI, '').includes(': request'));
    process.kill(-(child.pid as number), 'SIGTERM');

    expect(out).toMatch(ANSI); // coloured: it is a terminal
    const lines = out
      .replace(ANSI, '')
      .split(/\r?\n/)
      .filter((l) => l.startsWith('['));
    expect(lines.length).toBeGreaterThan(3);
    for (const line of lines)
      expect(line).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL): [\w:-]+: \S/);
    expect(lines.some((l) => / INFO: core: hub ready /.test(l))).toBe(true);
    expect(out).not.toMatch(/^\{"level"/m);
    const request = lines.find((l) => l.includes(': request'));
    expect(request).toContain('/api/site/[REDACTED]');
    expect(out).not.toContain(SECRET);
  });

  it('on a pipe (journald, a file) the same hub writes one JSON object per line, secrets redacted', async () => {
    const dir = dataDir();
    const hub = await spawnHub(dir, { ...env });
    children.push(hub.child);
    await hub.ready;
    await fetch(`${adminUrl(dir)}/api/site/${SECRET}/light`);
    await hub.said('"msg":"request"');
    hub.child.kill('SIGTERM');
    await hub.exited;
    const json = hub
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'));
    expect(json.length).toBeGreaterThan(3);
    for (const l of json) expect(() => JSON.parse(l)).not.toThrow();
    expect(hub.output()).not.toMatch(ANSI);
    expect(hub.output()).not.toContain(SECRET);
    expect(json.map((l) => JSON.parse(l)).find((e) => e.msg === 'request')?.url).toContain('[REDACTED]');
  });
});
