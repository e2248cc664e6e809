import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { promisify } from 'node:util';
import type { Logger } from 'pino';

export interface TlsConfig {
  enabled: boolean;
  cert_file: string;
  key_file: string;
  hostnames: string[];
}

const run = promisify(execFile);

/**
 * A self-signed certificate (EC P-256, 825 days) for the hub's names, made with the system `openssl`
 * once and reused. Browsers will warn until the operator trusts it; documented in the README.
 */
async function selfSigned(dir: string, names: string[], log: Logger): Promise<{ cert: string; key: string }> {
  const certFile = join(dir, 'tls-cert.pem');
  const keyFile = join(dir, 'tls-key.pem');
  try {
    return { cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8') };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  // Created 0600 first: openssl truncates and keeps the mode, so the key is never readable by others.
  await writeFile(keyFile, '', { mode: 0o600 });
  const san = names.map((n) => (net.isIP(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-days',
    '825',
    '-subj',
    `/CN=${names[0] ?? 'hearth'}`,
    '-addext',
    `subjectAltName=${san}`,
    '-keyout',
    keyFile,
    '-out',
    certFile,
  ]);
  await chmod(keyFile, 0o600);
  log.warn({ names }, 'generated a self-signed certificate for the authorization server');
  return { cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8') };
}

export interface TlsFront {
  port: number;
  /** The certificate in PEM (tests and operators pin it). */
  cert: string;
  close(): Promise<void>;
}

/**
 * HTTPS for the auth listener while the core only serves plain HTTP: a TLS terminator on the public port
 * that pipes each connection to the plugin's HTTP listener bound on loopback. The HTTP side then sees
 * every client as 127.0.0.1 (reported to the core, which should take TLS over).
 */
export async function startTlsFront(opts: {
  config: TlsConfig;
  dir: string;
  host: string;
  port: number;
  upstreamPort: number;
  log: Logger;
}): Promise<TlsFront> {
  const names = [
    ...new Set([
      ...opts.config.hostnames,
      `${hostname()}.local`,
      hostname(),
      'localhost',
      '127.0.0.1',
      '::1',
    ]),
  ];
  const pair =
    opts.config.cert_file && opts.config.key_file
      ? {
          cert: await readFile(opts.config.cert_file, 'utf8'),
          key: await readFile(opts.config.key_file, 'utf8'),
        }
      : await selfSigned(opts.dir, names, opts.log);
  new X509Certificate(pair.cert); // fails early on an unreadable certificate
  const sockets = new Set<net.Socket>();
  const server = tls.createServer(
    { cert: pair.cert, key: pair.key, minVersion: 'TLSv1.2', ALPNProtocols: ['http/1.1'] },
    (client) => {
      const upstream = net.connect(opts.upstreamPort, '127.0.0.1');
      sockets.add(client);
      client.once('close', () => sockets.delete(client));
      const end = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', end);
      upstream.on('error', end);
      client.pipe(upstream).pipe(client);
    },
  );
  server.on('tlsClientError', () => {}); // a port scan or a client refusing the certificate
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    cert: pair.cert,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
