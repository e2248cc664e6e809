/**
 * Which client addresses may claim a hub: the ones that can only come from the hub's own networks.
 * Loopback (RFC 1122 §3.2.1.3, RFC 4291 §2.5.3), private IPv4 (RFC 1918), shared CGN space is NOT
 * included (RFC 6598 is the carrier's, not the home's), link-local (RFC 3927, RFC 4291 §2.5.6) and IPv6
 * unique local addresses (RFC 4193). An IPv4 address mapped into IPv6 (`::ffff:a.b.c.d`, how a dual-stack
 * socket reports IPv4 clients) is judged as the IPv4 address it carries.
 */
import { isIPv4, isIPv6 } from 'node:net';

function localIPv4(ip: string): boolean {
  const [a = -1, b = -1] = ip.split('.').map(Number);
  return (
    a === 127 || // loopback
    a === 10 || // RFC 1918
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 169 && b === 254) // link-local
  );
}

export function isLocalAddress(address: string): boolean {
  const ip = address.trim().toLowerCase();
  if (isIPv4(ip)) return localIPv4(ip);
  if (!isIPv6(ip)) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(ip)?.[1];
  if (mapped) return localIPv4(mapped);
  if (ip === '::1') return true;
  const first = Number.parseInt(ip.split(':')[0] || '0', 16);
  // fe80::/10 link-local; fc00::/7 unique local.
  return (first & 0xffc0) === 0xfe80 || (first & 0xfe00) === 0xfc00;
}
