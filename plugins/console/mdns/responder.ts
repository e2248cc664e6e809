/**
 * The hub's mDNS responder (RFC 6762) for its own two service instances. It shares port 5353 with the
 * system's responder (avahi on Raspberry Pi OS): the socket is opened with SO_REUSEADDR, both receive every
 * question, and this one stays silent unless a question names one of our records. multicast-dns does the
 * socket, the group membership and the packet format.
 *
 * Start-up never waits on it: `startResponder` returns at once; choosing the name (one probe, §8.1) and
 * the announcement (§8.3) happen in the background. A name another host already answers for gets the
 * hub's short id ("Hearth 3FA2 console"). Stopping says goodbye (TTL 0, §10.1).
 */
import makeMdns from 'multicast-dns';
import type { Logger } from 'pino';
import { type AnnounceTarget, isMulticast, MDNS_PORT } from './config.ts';
import { type AnnouncedService, allRecords, answer, fullName, nameTaken, type Question } from './records.ts';

export interface ResponderOptions {
  target: AnnounceTarget;
  /** The services under the plain name; `rename` gives them the hub's short id. */
  services: AnnouncedService[];
  rename: (s: AnnouncedService) => AnnouncedService;
  /** `<hostname>.local`. */
  host: string;
  /** IPv4 addresses for the host's A records. */
  addresses: () => string[];
  log: Logger;
  /** How long the probe listens for another host's answer (RFC 6762 §8.1: 3 × 250 ms). */
  probeMs?: number;
}

export interface Responder {
  /** The instance names in use (after the probe). */
  names(): string[];
  /** Resolves once the name is chosen and the first announcement sent. */
  readonly announced: Promise<void>;
  stop(): Promise<void>;
}

/** The multicast-dns options for a target (the same shapes as the Hue discovery setting). */
export function responderOptions(target: AnnounceTarget): makeMdns.Options {
  if (!isMulticast(target.address)) {
    // One address of this host: only questions sent there directly are answered, no group is joined.
    return { ip: target.address, port: target.port, multicast: false, bind: target.address, reuseAddr: true };
  }
  if (!target.interface) return { ip: target.address, port: target.port, reuseAddr: true };
  // Bound to every address (Linux delivers no multicast to a socket bound to a unicast address); the
  // group is joined, and answers sent, on `interface` only.
  return {
    ip: target.address,
    port: target.port,
    interface: target.interface,
    bind: '0.0.0.0',
    reuseAddr: true,
  };
}

export function startResponder(o: ResponderOptions): Responder {
  const mdns = makeMdns(responderOptions(o.target));
  const multicast = isMulticast(o.target.address);
  let services = o.services;
  let live = false;
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  mdns.on('error', (err: Error) =>
    o.log.warn({ err: err.message }, 'mDNS responder cannot listen; the hub is not announced'),
  );
  mdns.on('warning', (err: Error) => o.log.debug({ err: err.message }, 'mDNS warning'));

  // The probe: any answer for one of our names before we answer ourselves is another host's.
  let taken = false;
  mdns.on('response', (packet) => {
    if (!live && nameTaken(packet.answers ?? [], services)) taken = true;
  });

  mdns.on('query', (packet, rinfo) => {
    if (!live) return;
    const reply = answer(packet.questions as Question[], services, o.host, o.addresses());
    if (!reply) return;
    // RFC 6762 §6.7: a question from a port other than 5353 is a one-shot (legacy) query, answered by
    // unicast to where it came from with its id and questions; §6: others go to the group.
    if (!multicast || rinfo.port !== MDNS_PORT) {
      mdns.respond(
        { id: packet.id, questions: packet.questions, ...reply } as makeMdns.ResponseOutgoingPacket,
        { port: rinfo.port, address: rinfo.address } as never,
      );
    } else mdns.respond(reply as makeMdns.ResponseOutgoingPacket);
  });

  const announced = (async () => {
    if (multicast) {
      mdns.query(services.map((s) => ({ name: fullName(s), type: 'SRV' as const })));
      await later(o.probeMs ?? 750);
      if (taken) services = services.map(o.rename);
    }
    if (stopped) return;
    live = true;
    o.log.info({ names: services.map((s) => s.instance) }, 'announcing the hub on mDNS');
    if (!multicast) return;
    // RFC 6762 §8.3: announce twice, one second apart.
    mdns.respond(allRecords(services, o.host, o.addresses()) as makeMdns.ResponseOutgoingPacket);
    await later(1000);
    if (!stopped)
      mdns.respond(allRecords(services, o.host, o.addresses()) as makeMdns.ResponseOutgoingPacket);
  })();

  return {
    names: () => services.map((s) => s.instance),
    announced,
    async stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      if (live && multicast) {
        await new Promise<void>((resolve) =>
          mdns.respond(allRecords(services, o.host, [], true) as makeMdns.ResponseOutgoingPacket, () =>
            resolve(),
          ),
        );
      }
      await new Promise<void>((resolve) => mdns.destroy(() => resolve()));
    },
  };
}
