/**
 * Brokers the MQTT tests drive devices through: a bare aedes on loopback that can be stopped and started
 * again on the same port (an "embedded" broker restart, research §5.1), and Debian's mosquitto started as
 * a child process. Plus a recording sink wait with a clear failure instead of a hang.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Aedes } from 'aedes';

export interface RestartableBroker {
  url: string;
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/** aedes on 127.0.0.1; stop() drops every client (as a crash would) and loses retained messages. */
export async function startAedes(): Promise<RestartableBroker> {
  const port = await freePort();
  let server: Server | null = null;
  let broker: Aedes | null = null;
  const sockets = new Set<Socket>();
  const self: RestartableBroker = {
    url: `mqtt://127.0.0.1:${port}`,
    port,
    async start() {
      const b = await Aedes.createBroker();
      const srv = createServer((s) => {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        b.handle(s);
      });
      await new Promise<void>((resolve, reject) => {
        srv.once('error', reject);
        srv.listen(port, '127.0.0.1', () => resolve());
      });
      server = srv;
      broker = b;
    },
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
      await new Promise<void>((r) => (broker ? broker.close(() => r()) : r()));
      server = null;
      broker = null;
    },
  };
  await self.start();
  return self;
}

export const MOSQUITTO = '/usr/sbin/mosquitto';

/** Debian's mosquitto on a free port, anonymous, listening on loopback only. */
export async function startMosquitto(): Promise<RestartableBroker> {
  const port = await freePort();
  const conf = path.join(tmpdir(), `hearth-mosq-${port}.conf`);
  writeFileSync(conf, `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\n`);
  let child: ChildProcess | null = null;
  const self: RestartableBroker = {
    url: `mqtt://127.0.0.1:${port}`,
    port,
    async start() {
      const c = spawn(MOSQUITTO, ['-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
      child = c;
      await new Promise<void>((resolve, reject) => {
        let text = '';
        const onData = (d: Buffer) => {
          text += d.toString();
          if (/running|Opening ipv4 listen socket/.test(text)) {
            c.stderr?.off('data', onData);
            resolve();
          }
        };
        c.stderr?.on('data', onData);
        c.once('exit', (code) => reject(new Error(`mosquitto exited with ${code}: ${text}`)));
      });
    },
    async stop() {
      const c = child;
      child = null;
      if (!c || c.exitCode !== null) return;
      await new Promise<void>((r) => {
        c.once('exit', () => r());
        c.kill('SIGKILL');
      });
    },
  };
  await self.start();
  return self;
}

/** Rejects after `ms` with `what` so a missing message fails the test with a reason. */
export function within<T>(p: Promise<T>, what: string, ms = 5000): Promise<T> {
  return Promise.race([
    p,
    new Promise<T>((_, reject) =>
      setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms).unref(),
    ),
  ]);
}
