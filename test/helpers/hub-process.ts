import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

export interface HubProcess {
  child: ChildProcess;
  adminUrl: string;
  output(): string;
  /** SIGTERM, resolved on exit. */
  stop(): Promise<void>;
  /** SIGKILL, resolved on exit. */
  kill(): Promise<void>;
}

/** A real hub process (test/core/fixtures/run-hub.ts) on `dataDir`, resolved once it is ready. */
export async function startHubProcess(
  dataDir: string,
  env: Record<string, string> = {},
): Promise<HubProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/core/fixtures/run-hub.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HEARTH_DATA_DIR: dataDir,
      HEARTH_HOST: '127.0.0.1',
      HEARTH_PORT: '0',
      HEARTH_ADMIN_PORT: '0',
      HEARTH_MQTT_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const collect = (c: Buffer) => {
    out += c.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
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
  const run = JSON.parse(readFileSync(path.join(dataDir, 'run', 'control.json'), 'utf8')) as {
    adminUrl: string;
  };
  return {
    child,
    adminUrl: run.adminUrl,
    output: () => out,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}
