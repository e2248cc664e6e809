/**
 * The simulated bridge's mDNS answer: a `multicast-dns` responder that answers a `_hue._tcp.local` PTR
 * query with the bridge's instance, SRV (address and port, as they are at the time of the query), TXT
 * (`bridgeid`, `modelid`) and A records, the way a bridge does. Tests run it on loopback with unicast
 * (the query's source gets the answer), since a loopback interface usually carries no multicast.
 */
import makeMdns from 'multicast-dns';
import { HUE_SERVICE } from '../../../drivers/hue/discovery.ts';

export interface AnsweringBridge {
  readonly bridgeId: string;
  readonly host: string;
  readonly port: number;
}

export interface MdnsResponderOptions {
  /** multicast-dns options: tests pass a free UDP port on 127.0.0.1 and `multicast: false`. */
  mdns?: makeMdns.Options;
  instance?: string;
}

export class BridgeMdnsResponder {
  readonly #mdns: makeMdns.MulticastDNS;
  /** Queries answered, for tests. */
  answered = 0;

  private constructor(mdns: makeMdns.MulticastDNS) {
    this.#mdns = mdns;
  }

  static start(bridge: AnsweringBridge, opts: MdnsResponderOptions = {}): Promise<BridgeMdnsResponder> {
    const mdns = makeMdns(opts.mdns);
    const responder = new BridgeMdnsResponder(mdns);
    const instance = `${opts.instance ?? `Hue Bridge - ${bridge.bridgeId.slice(-6).toUpperCase()}`}.${HUE_SERVICE}`;
    const target = `${bridge.bridgeId}.local`;
    mdns.on('query', (query, rinfo) => {
      if (!(query.questions ?? []).some((q) => q.name.toLowerCase() === HUE_SERVICE)) return;
      responder.answered += 1;
      mdns.respond(
        {
          answers: [{ name: HUE_SERVICE, type: 'PTR', ttl: 120, data: instance }],
          additionals: [
            { name: instance, type: 'SRV', data: { target, port: bridge.port, priority: 0, weight: 0 } },
            { name: instance, type: 'TXT', data: [`bridgeid=${bridge.bridgeId}`, 'modelid=BSB002'] },
            { name: target, type: 'A', data: bridge.host },
          ],
        },
        rinfo,
      );
    });
    return new Promise((resolve, reject) => {
      mdns.once('ready', () => resolve(responder));
      mdns.once('error', reject);
    });
  }

  stop(): Promise<void> {
    return new Promise((r) => this.#mdns.destroy(() => r()));
  }
}
