import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';

/**
 * An HTTPS GET for a URL an unauthenticated caller named (a client's metadata document). Guards against
 * server-side request forgery: https only, no redirects, every address the name resolves to must be public
 * (checked in the socket's own lookup, so the address connected to is the address checked — a name that
 * resolves differently a moment later cannot slip through), a time limit for the whole exchange and a
 * size limit on the body.
 */
export class SafeFetchError extends Error {}

export interface SafeFetchOptions {
  maxBytes: number;
  timeoutMs: number;
  /** Loopback, private and link-local addresses are allowed too. */
  allowPrivate: boolean;
  /** Extra trusted CA certificates (PEM), added to the system roots. */
  ca?: string | undefined;
}

export interface SafeFetchResult {
  body: string;
  contentType: string;
  cacheControl: string;
}

// Special-purpose and non-public ranges (RFC 6890 and the IANA registries), IPv4 and IPv6.
const blocked = new net.BlockList();
for (const [net4, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net4, prefix, 'ipv4');
for (const [net6, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  blocked.addSubnet(net6, prefix, 'ipv6');

/** True for an address that is not on the public internet. IPv4-mapped IPv6 is judged by its IPv4 part. */
export function isNonPublicAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return blocked.check(mapped[1]!, 'ipv4');
  const family = net.isIP(address);
  if (family === 0) return true;
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A lookup for the socket that refuses names resolving to any non-public address. */
function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: { all?: boolean }, cb: LookupCallback) => {
    dnsLookup(hostname, { all: true }, (err, addresses) => {
      if (err) return cb(err, []);
      if (addresses.length === 0) return cb(new SafeFetchError('the name does not resolve'), []);
      if (!allowPrivate && addresses.some((a) => isNonPublicAddress(a.address)))
        return cb(new SafeFetchError('the host is not on a public network'), []);
      if (options.all) return cb(null, addresses);
      cb(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

export function safeFetch(url: URL, opts: SafeFetchOptions): Promise<SafeFetchResult> {
  if (url.protocol !== 'https:') return Promise.reject(new SafeFetchError('only https URLs are fetched'));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // An IP literal never reaches the lookup, so it is checked here.
  if (net.isIP(host) !== 0 && !opts.allowPrivate && isNonPublicAddress(host))
    return Promise.reject(new SafeFetchError('the host is not on a public network'));
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(err instanceof SafeFetchError ? err : new SafeFetchError('the document could not be fetched'));
    };
    const req = https.request(url, {
      method: 'GET',
      headers: { accept: 'application/json' },
      agent: false,
      lookup: guardedLookup(opts.allowPrivate) as unknown as typeof dnsLookup,
      ...(opts.ca ? { ca: [...tls.rootCertificates, opts.ca] } : {}),
    });
    const timer = setTimeout(
      () => fail(new SafeFetchError('the host did not answer in time')),
      opts.timeoutMs,
    );
    req.once('error', fail);
    req.once('response', (res) => {
      const status = res.statusCode ?? 0;
      if (status !== 200) return fail(new SafeFetchError(`the host answered ${status}`)); // 3xx too: no redirects
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > opts.maxBytes)
          return fail(new SafeFetchError(`the document is larger than ${opts.maxBytes} bytes`));
        chunks.push(chunk);
      });
      res.once('error', fail);
      res.once('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({
          body: Buffer.concat(chunks).toString('utf8'),
          contentType: String(res.headers['content-type'] ?? ''),
          cacheControl: String(res.headers['cache-control'] ?? ''),
        });
      });
    });
    req.end();
  });
}
