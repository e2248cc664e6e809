/**
 * The operator's view through real processes: `hearth start` on a fresh data dir prints the Home site's
 * web UI URL right after the generated admin key, and `hearth site create <name> --json` prints exactly
 * `{"siteid","sitekey"}` on one line (README "Sites and keys"), and what the API acknowledged survives SIGKILL
 * (docs/durability.md: durable the moment the API answers).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(path.join(tmpdir(), 'hearth-lighting-cli-'));
const dataDir = path.join(dir, 'data');
const configFile = path.join(dir, 'hearth.json');
// Only lighting runs: every other installed plugin is disabled, whatever lands in plugins/ later.
const others = readdirSync(path.join(root, 'plugins')).filter((n) => n !== 'lighting');
writeFileSync(
  configFile,
  JSON.stringify({
    host: '127.0.0.1',
    log: { level: 'error' },
    http: { main: { port: 0 }, admin: { port: 0 } },
    mqtt: { port: 0 },
    plugins: Object.fromEntries(others.map((n) => [n, { enabled: false }])),
  }),
);
const env = { PATH: process.env.PATH ?? '', HEARTH_CONFIG: configFile, HEARTH_DATA_DIR: dataDir };

let hub: ChildProcess | undefined;
/** The running hub's main listener, from the URL it printed. */
let mainUrl = '';
/** The key `hearth site create` printed. */
let createdKey = '';
afterAll(async () => {
  if (hub && hub.exitCode === null) {
    const exited = new Promise((r) => hub?.once('exit', r));
    hub.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Starts `hearth start` and resolves with its console lines once a line matches `until`. */
function startHub(until: RegExp): Promise<string[]> {
  const child = spawn(process.execPath, ['scripts/hearth.mjs', 'start'], { cwd: root, env });
  hub = child;
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const lines = out.split('\n');
      if (lines.some((l) => until.test(l))) resolve(lines);
    });
    child.stderr.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.once('exit', (code) => reject(new Error(`hearth start exited (${code}): ${out}`)));
  });
}

function hearth(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['scripts/hearth.mjs', ...args], { cwd: root, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('hearth start on a fresh data dir', () => {
  it('prints the Home site web UI URL next to the admin key, and the URL serves the page', async () => {
    const lines = await startHub(/\/site\//);
    const at = lines.findIndex((l) => l.includes('/site/'));
    expect(lines[at - 1]).toMatch(/^Admin key \(shown once; it is stored only as a hash\): \S+$/);
    const url = /web UI of site "Home": (http:\/\/127\.0\.0\.1:\d+\/site\/[A-Za-z0-9_-]{24})$/.exec(
      lines[at] ?? '',
    )?.[1];
    expect(url).toBeDefined();
    mainUrl = new URL(url!).origin;
    const page = await fetch(url!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>Hearth lights</title>');
  });
});

describe('hearth site create <name> --json', () => {
  it('prints exactly {"siteid","sitekey"} on one line, and the key opens the new site', async () => {
    const r = await hearth(['site', 'create', 'Summer', 'house', '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\{"siteid":"[0-9a-f]{24}","sitekey":"[A-Za-z0-9_-]{24}"\}\n$/);
    const { siteid, sitekey } = JSON.parse(r.stdout) as { siteid: string; sitekey: string };
    const listed = await hearth(['site', 'list', '--json']);
    const sites = JSON.parse(listed.stdout) as Array<{ siteid: string; name: string }>;
    expect(sites.find((s) => s.siteid === siteid)?.name).toBe('Summer house');
    expect(listed.stdout).not.toContain(sitekey);
    const site = await fetch(`${mainUrl}/api/site/${sitekey}`);
    expect(site.status).toBe(200);
    expect(await site.json()).toMatchObject({ siteid, name: 'Summer house', lights: [] });
    createdKey = sitekey;
  });
});

describe('durable when acknowledged', () => {
  it('keeps a site and a light created just before the hub is killed with SIGKILL', async () => {
    const light = await fetch(`${mainUrl}/api/site/${createdKey}/light`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Porch', type: 'binary', vendor: 'virtual', virtualid: 'p1' }),
    });
    expect(light.status).toBe(201);
    const { _id } = (await light.json()) as { _id: string };
    // No graceful stop, no flush: what was acknowledged must already be on disk.
    const killed = new Promise((r) => hub?.once('exit', r));
    hub?.kill('SIGKILL');
    await killed;
    const lines = await startHub(/^\s+main\s+http/);
    mainUrl = /^\s+main\s+(http\S+)/.exec(lines.find((l) => /^\s+main\s+http/.test(l)) ?? '')?.[1] ?? '';
    const after = await fetch(`${mainUrl}/api/site/${createdKey}/light`);
    expect(after.status).toBe(200);
    expect(await after.json()).toEqual([expect.objectContaining({ _id, name: 'Porch', virtualid: 'p1' })]);
    // A restart with sites already there creates no second Home site.
    expect(lines.some((l) => l.includes('/site/'))).toBe(false);
  });
});
