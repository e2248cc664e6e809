/**
 * Starts the built hub (`dist/core/cli/main.js start`, what `npm start` and the systemd unit run) as its own
 * process on loopback, every port ephemeral, and resolves once its banner shows what the caller waits for.
 * One helper for the benches, the soak and the start-bundle test, so they all start it the same way.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

/** The V8 flags of `npm start` and the systemd unit. */
export const PRODUCTION_FLAGS = ['--max-semi-space-size=2', '--max-old-space-size=128'];

export interface BuiltHubOptions {
  dataDir: string;
  /** The build's folder (default: dist/ of the repository). */
  dist?: string;
  /** Node flags before the script (default: PRODUCTION_FLAGS). */
  flags?: string[];
  /** HEARTH_LOG_LEVEL (default: warn). */
  logLevel?: string;
  adminKey?: string;
  /** More settings (e.g. a plugin off); they win over the defaults. */
  env?: Record<string, string>;
  /** What becomes of the hub's stderr: shown (default), dropped, or collected with stdout. */
  stderr?: 'inherit' | 'ignore' | 'pipe';
  /** Resolves once the output matches this (default: the banner's admin listener line, after main's). */
  until?: RegExp;
}

export interface BuiltHub {
  child: ChildProcess;
  /** Everything read so far (stdout, and stderr when collected). */
  output(): string;
  /** The first capture group of `re` in the output; throws if it is not there. */
  find(re: RegExp): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  /** SIGTERM, resolved on exit. */
  stop(): Promise<void>;
}

export async function spawnBuiltHub(opts: BuiltHubOptions): Promise<BuiltHub> {
  const dist = opts.dist ?? path.join(root, 'dist');
  const child = spawn(
    process.execPath,
    [...(opts.flags ?? PRODUCTION_FLAGS), path.join(dist, 'core', 'cli', 'main.js'), 'start'],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HEARTH_DATA_DIR: opts.dataDir,
        HEARTH_HOST: '127.0.0.1',
        HEARTH_PORT: '0',
        HEARTH_ADMIN_PORT: '0',
        HEARTH_MQTT_PORT: '0',
        HEARTH_PLUGINS__AUTH__PORT: '0',
        HEARTH_LOG_LEVEL: opts.logLevel ?? 'warn',
        ...(opts.adminKey ? { HEARTH_ADMIN_KEY: opts.adminKey } : {}),
        ...opts.env,
      },
      stdio: ['ignore', 'pipe', opts.stderr ?? 'inherit'],
    },
  );
  let out = '';
  const until = opts.until ?? /admin\s+http:\S+/;
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    const read = (c: Buffer) => {
      out += c.toString();
      if (until.test(out)) resolve();
    };
    // Log lines keep coming after the banner: reading on keeps the pipe from filling.
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    void exited.then((code) => reject(new Error(`hub exited (${code}) before ${until}: ${out}`)));
  });
  return {
    child,
    output: () => out,
    find(re) {
      const m = re.exec(out);
      if (!m?.[1]) throw new Error(`not in the hub's output: ${re}`);
      return m[1];
    },
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
