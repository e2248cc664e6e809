/**
 * Brokers the MQTT tests drive devices through: a bare aedes on loopback that can be stopped and started
 * again on the same port (an "embedded" broker restart, docs/mqtt-devices.md#the-embedded-broker), and Debian's mosquitto started as
 * a child process. Plus a recording sink wait with a clear failure instead of a hang.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Aedes } from 'aedes';
import mqtt, { type IClientOptions } from 'mqtt';

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

export interface SecureOptions {
  /** A user the broker accepts (mosquitto_passwd); anonymous clients are refused. */
  user: { username: string; password: string };
}

/** A throw-away CA and a server certificate for 127.0.0.1 / localhost, made with openssl. */
export function makeCertificates(dir: string): { ca: string; cert: string; key: string } {
  const f = (n: string) => path.join(dir, n);
  const ssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  ssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=Hearth test CA',
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.crt'),
  );
  ssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=localhost',
    '-keyout',
    f('server.key'),
    '-out',
    f('server.csr'),
  );
  writeFileSync(f('ext.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  ssl(
    'x509',
    '-req',
    '-in',
    f('server.csr'),
    '-CA',
    f('ca.crt'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    f('ext.cnf'),
    '-out',
    f('server.crt'),
  );
  return { ca: f('ca.crt'), cert: f('server.crt'), key: f('server.key') };
}

/**
 * Debian's mosquitto on a free loopback port: anonymous and plain by default; with `secure`, TLS
 * (`mqtts://`, a CA made for the test, available as `caFile`) and a password file.
 */
export async function startMosquitto(
  secure?: SecureOptions,
): Promise<RestartableBroker & { caFile?: string }> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'hearth-mosq-'));
  const conf = path.join(dir, 'mosquitto.conf');
  let lines = [`listener ${port} 127.0.0.1`, 'persistence false'];
  let caFile: string | undefined;
  if (secure) {
    const certs = makeCertificates(dir);
    caFile = certs.ca;
    const pw = path.join(dir, 'passwd');
    execFileSync('mosquitto_passwd', ['-b', '-c', pw, secure.user.username, secure.user.password], {
      stdio: 'ignore',
    });
    lines = [
      ...lines,
      `cafile ${certs.ca}`,
      `certfile ${certs.cert}`,
      `keyfile ${certs.key}`,
      'allow_anonymous false',
      `password_file ${pw}`,
    ];
  } else lines.push('allow_anonymous true');
  writeFileSync(conf, `${lines.join('\n')}\n`);
  // mosquitto started as root drops to its own user: let it read the test's files.
  chmodSync(dir, 0o755);
  for (const f of readdirSync(dir)) chmodSync(path.join(dir, f), 0o644);
  let child: ChildProcess | null = null;
  const self: RestartableBroker & { caFile?: string } = {
    ...(caFile ? { caFile } : {}),
    url: `${secure ? 'mqtts' : 'mqtt'}://127.0.0.1:${port}`,
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
export function within<T>(p: Promise<T>, what: string, ms = 10_000): Promise<T> {
  return Promise.race([
    p,
    new Promise<T>((_, reject) =>
      setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms).unref(),
    ),
  ]);
}

/**
 * Topics under `filter` that hold a retained message, as a new subscriber sees them. A broker clears the
 * retain flag on live deliveries [MQTT-3.3.1-9], so only a late subscriber can tell whether a command was
 * retained (the Tasmota "ghost switching" problem). A retained sentinel at `sentinel` bounds the wait.
 */
export async function retainedUnder(
  url: string,
  filter: string,
  sentinel: string,
  opts: IClientOptions = {},
): Promise<string[]> {
  const c = await mqtt.connectAsync(url, { ...opts, reconnectPeriod: 0 });
  try {
    const retained: string[] = [];
    c.on('message', (topic, _p, packet) => {
      if (packet.retain) retained.push(topic);
    });
    await c.publishAsync(sentinel, 'sentinel', { retain: true });
    await c.subscribeAsync(filter);
    await within(
      (async () => {
        while (!retained.includes(sentinel)) await new Promise((r) => setTimeout(r, 10));
      })(),
      'the retained sentinel',
    );
    await new Promise((r) => setTimeout(r, 200));
    await c.publishAsync(sentinel, '', { retain: true });
    return retained.filter((t) => t !== sentinel);
  } finally {
    await c.endAsync();
  }
}
