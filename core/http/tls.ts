import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { chmod, mkdir, readFile } from 'node:fs/promises';
import net from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from 'pino';

export interface TlsSettings {
  enabled: boolean;
  certFile?: string;
  keyFile?: string;
  /** Extra names (DNS or IP) for a generated certificate. */
  hostnames: string[];
}

export interface TlsMaterial {
  cert: string;
  key: string;
}

const run = promisify(execFile);

/** Every name a phone on the LAN might use for this box. */
export function localNames(extra: string[]): string[] {
  const ips = Object.values(networkInterfaces())
    .flat()
    .flatMap((a) => (a && !a.internal ? [a.address] : []));
  return [...new Set([...extra, hostname(), `${hostname()}.local`, 'localhost', '127.0.0.1', '::1', ...ips])];
}

/**
 * A self-signed certificate (EC P-256, 825 days, the longest lifetime Apple platforms accept) for the
 * box's names, made once with the system `openssl` and reused, so a phone that trusted it keeps trusting it.
 */
async function selfSigned(dir: string, names: string[], log: Logger): Promise<TlsMaterial> {
  const certFile = path.join(dir, 'tls-cert.pem');
  const keyFile = path.join(dir, 'tls-key.pem');
  try {
    return { cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8') };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const san = names.map((n) => (net.isIP(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
  // biome-ignore format: one flag per line pair reads better as a command line
  await run('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '825',
    '-subj', `/CN=${names[0] ?? 'hearth'}`, '-addext', `subjectAltName=${san}`,
    '-keyout', keyFile, '-out', certFile,
  ]);
  await chmod(keyFile, 0o600);
  log.warn({ names }, 'generated a self-signed TLS certificate; browsers warn until it is trusted');
  return { cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8') };
}

/** The certificate every listener serves: the configured files, or a generated one under `dir`. */
export async function loadTls(settings: TlsSettings, dir: string, log: Logger): Promise<TlsMaterial | null> {
  if (!settings.enabled) return null;
  const material =
    settings.certFile && settings.keyFile
      ? { cert: await readFile(settings.certFile, 'utf8'), key: await readFile(settings.keyFile, 'utf8') }
      : await selfSigned(dir, localNames(settings.hostnames), log);
  new X509Certificate(material.cert); // an unreadable certificate fails the start, not the first client
  return material;
}
