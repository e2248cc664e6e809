/**
 * Finding bridges on the LAN by mDNS (`_hue._tcp.local`, docs/hue.md#finding-and-pairing): a bridge
 * answers with its instance (PTR), address and port (SRV, A/AAAA) and its bridge id (TXT `bridgeid`).
 * multicast-dns does the socket and the DNS packet format; this file only reads the records.
 */
import type makeMdns from 'multicast-dns';
import { isBridgeId, normaliseBridgeId } from './tls.ts';

export const HUE_SERVICE = '_hue._tcp.local';

export interface FoundBridge {
  bridgeId: string;
  host: string;
  port: number;
  name: string;
}

export interface MdnsRecord {
  name: string;
  type: string;
  data: unknown;
}

/** Bridges described by the records of one or more mDNS answers. */
export function bridgesFromRecords(records: MdnsRecord[]): FoundBridge[] {
  const instances = new Set<string>();
  const srv = new Map<string, { target: string; port: number }>();
  const txt = new Map<string, string>();
  const addr = new Map<string, string>();
  for (const r of records) {
    const name = r.name.toLowerCase();
    if (r.type === 'PTR' && name === HUE_SERVICE && typeof r.data === 'string') instances.add(r.data);
    else if (r.type === 'SRV') {
      const d = r.data as { target?: unknown; port?: unknown };
      if (typeof d?.target === 'string' && typeof d.port === 'number')
        srv.set(name, { target: d.target.toLowerCase(), port: d.port });
    } else if (r.type === 'TXT') {
      const parts = Array.isArray(r.data) ? r.data : [r.data];
      for (const p of parts) {
        const s = Buffer.isBuffer(p) ? p.toString('utf8') : String(p);
        if (s.toLowerCase().startsWith('bridgeid=')) txt.set(name, normaliseBridgeId(s.slice(9)));
      }
    } else if (r.type === 'A' && typeof r.data === 'string' && !addr.has(name)) addr.set(name, r.data);
  }
  const out: FoundBridge[] = [];
  for (const instance of instances) {
    const key = instance.toLowerCase();
    const s = srv.get(key);
    const id = txt.get(key);
    const host = s ? addr.get(s.target) : undefined;
    if (!s || !id || !host || !isBridgeId(id)) continue;
    out.push({ bridgeId: id, host, port: s.port, name: instance.replace(`.${HUE_SERVICE}`, '') });
  }
  return out;
}

/** Where discovery asks: the hue plugin's `discovery` setting (plugins/hue/README.md#finding-bridges). */
export interface DiscoveryTarget {
  /** IPv4 address of the network interface to ask on; '' lets the system choose. Multicast only. */
  interface: string;
  /** The mDNS group (224.0.0.251), another multicast group, or one host's unicast IPv4 address. */
  address: string;
  port: number;
}

/** The target mDNS itself defines: the group every bridge listens on, on every interface. */
export const MDNS_TARGET: DiscoveryTarget = { interface: '', address: '224.0.0.251', port: 5353 };

const isMulticast = (ipv4: string): boolean => {
  const first = Number(ipv4.split('.')[0]);
  return first >= 224 && first <= 239;
};

/** The multicast-dns options that ask `target` (docs/hue.md#finding-and-pairing). */
export function mdnsOptionsFor(target: DiscoveryTarget): makeMdns.Options {
  if (!isMulticast(target.address)) {
    // One host asked directly, from an ephemeral port: an mDNS responder answers such a query by unicast
    // to the port it came from, so no group is joined and the mDNS port is left to whoever owns it. The
    // host's routes pick the interface.
    return { ip: target.address, port: target.port, multicast: false, bind: false };
  }
  if (!target.interface) return { ip: target.address, port: target.port };
  // multicast-dns also binds the socket to `interface`, and on Linux a socket bound to a unicast address
  // receives no multicast answers: bind to every address, and let `interface` choose where the group is
  // joined and the question sent.
  return { ip: target.address, port: target.port, interface: target.interface, bind: '0.0.0.0' };
}

export interface DiscoverOptions {
  durationMs?: number;
  /** multicast-dns options (default: the mDNS group on every interface; see `mdnsOptionsFor`). */
  mdns?: makeMdns.Options;
}

/** Asks the LAN for Hue bridges and collects the answers for `durationMs` (default 3 s). */
export async function discoverBridges(opts: DiscoverOptions = {}): Promise<FoundBridge[]> {
  // Loaded on first use: a hub whose bridges are paired never looks them up and need not carry it.
  const { default: makeMdns } = await import('multicast-dns');
  return new Promise((resolve, reject) => {
    const mdns = makeMdns(opts.mdns);
    const records: MdnsRecord[] = [];
    mdns.on('response', (packet) => {
      for (const r of [...(packet.answers ?? []), ...(packet.additionals ?? [])])
        records.push(r as MdnsRecord);
    });
    mdns.on('error', (err: Error) => {
      mdns.destroy();
      reject(err);
    });
    mdns.query({ questions: [{ name: HUE_SERVICE, type: 'PTR' }] });
    setTimeout(() => {
      mdns.destroy();
      const unique = new Map(bridgesFromRecords(records).map((b) => [b.bridgeId, b]));
      resolve([...unique.values()]);
    }, opts.durationMs ?? 3000);
  });
}

/** Finds one bridge again by id (it moved to another address). */
export async function refindBridge(
  bridgeId: string,
  opts: DiscoverOptions = {},
): Promise<{ host: string; port: number } | null> {
  const found = (await discoverBridges(opts)).find((b) => b.bridgeId === normaliseBridgeId(bridgeId));
  return found ? { host: found.host, port: found.port } : null;
}
