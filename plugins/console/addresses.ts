/**
 * The addresses a phone on the LAN can open: `<hostname>.local` (answered by the system's mDNS responder,
 * avahi on Raspberry Pi OS) and each IPv4 address of the hub's network interfaces. A listener bound to
 * loopback only is reachable from this machine alone, so only its own URL is given.
 */
import { hostname, networkInterfaces } from 'node:os';

const LOOPBACK = /^(127\.|\[::1\]|localhost$)/;

/** IPv4 addresses of the interfaces that face a network (not loopback). */
export function lanIPv4(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((a) => a.family === 'IPv4' && !a.internal)
    .map((a) => a.address);
}

/** The URLs of one listener a browser can open, the `.local` name first; `path` is appended. */
export function addressesOf(listenerUrl: string, path: string): string[] {
  const url = new URL(listenerUrl);
  if (LOOPBACK.test(url.hostname)) return [`${url.origin}${path}`];
  const at = (host: string) => `${url.protocol}//${host}:${url.port}${path}`;
  return [at(`${hostname().split('.')[0]}.local`), ...lanIPv4().map(at)];
}
