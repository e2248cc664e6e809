/**
 * Finding bridges by mDNS: the records of an answer, a live query answered by the simulated bridge's
 * responder over real UDP on loopback (also as the plugin's `discovery` setting asks for it), how that
 * setting maps onto multicast-dns, and a driver that finds its bridge again by id after the bridge moved
 * to another address.
 */
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bridgesFromRecords,
  type DiscoverOptions,
  discoverBridges,
  HUE_SERVICE,
  MDNS_TARGET,
  type MdnsRecord,
  mdnsOptionsFor,
  refindBridge,
} from '../../drivers/hue/discovery.ts';
import { createHueDriver, type HueDriver } from '../../drivers/hue/driver.ts';
import { BridgeMdnsResponder } from '../../scripts/simulators/hue-bridge/mdns.ts';
import { RecordingSink } from '../drivers/conformance.ts';
import { bridgeWithKey, freeUdpPort, type SimulatedBridge } from './helpers.ts';

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

/**
 * A responder on 127.0.0.1:<port> and the discovery options that reach it: queries go by unicast to that
 * port from an ephemeral one, and the answer comes back to it (a loopback interface carries no multicast
 * here; everything else — sockets, the DNS codec, the records — is the real thing).
 */
async function responderFor(bridge: SimulatedBridge) {
  const port = await freeUdpPort();
  const responder = await BridgeMdnsResponder.start(bridge, {
    mdns: { port, interface: '127.0.0.1', multicast: false },
  });
  cleanup.push(() => responder.stop());
  const opts: DiscoverOptions = {
    durationMs: 300,
    mdns: { port, ip: '127.0.0.1', multicast: false, bind: false },
  };
  return { responder, opts };
}

const record = (name: string, type: string, data: unknown): MdnsRecord => ({ name, type, data });

describe('hue mDNS discovery', () => {
  it('finds a simulated bridge by a live mDNS query on loopback: bridge id, address and port', async () => {
    const { bridge } = await bridgeWithKey();
    cleanup.push(() => bridge.stop());
    const { responder, opts } = await responderFor(bridge);
    const found = await discoverBridges(opts);
    expect(responder.answered).toBeGreaterThan(0);
    expect(found).toEqual([
      { bridgeId: bridge.bridgeId, host: '127.0.0.1', port: bridge.port, name: 'Hue Bridge - 4A5B6C' },
    ]);
    expect(await refindBridge(bridge.bridgeId.toUpperCase(), opts)).toEqual({
      host: '127.0.0.1',
      port: bridge.port,
    });
    expect(await refindBridge('001788fffe000000', opts)).toBeNull();
  });

  it("the plugin's discovery setting naming a unicast address asks that host directly", async () => {
    const { bridge } = await bridgeWithKey();
    cleanup.push(() => bridge.stop());
    const { responder, opts } = await responderFor(bridge);
    const port = (opts.mdns as { port: number }).port;
    const mdns = mdnsOptionsFor({ interface: '', address: '127.0.0.1', port });
    // Nothing bound to the responder's port and no group joined: the answer comes back to the asking port.
    expect(mdns).toEqual({ ip: '127.0.0.1', port, multicast: false, bind: false });
    expect(await discoverBridges({ durationMs: 300, mdns })).toEqual([
      { bridgeId: bridge.bridgeId, host: '127.0.0.1', port: bridge.port, name: 'Hue Bridge - 4A5B6C' },
    ]);
    expect(responder.answered).toBe(1);
    // Another port on that host has no responder: nothing is found.
    expect(
      await discoverBridges({
        durationMs: 300,
        mdns: mdnsOptionsFor({ ...MDNS_TARGET, address: '127.0.0.1', port: await freeUdpPort() }),
      }),
    ).toEqual([]);
  });

  it('the default setting asks the mDNS group exactly as multicast-dns does unconfigured; an interface keeps receiving the group', () => {
    expect(MDNS_TARGET).toEqual({ interface: '', address: '224.0.0.251', port: 5353 });
    expect(mdnsOptionsFor(MDNS_TARGET)).toEqual({ ip: '224.0.0.251', port: 5353 });
    // multicast-dns would bind the socket to the interface's address, where Linux delivers no multicast.
    expect(mdnsOptionsFor({ ...MDNS_TARGET, interface: '192.168.1.5' })).toEqual({
      ip: '224.0.0.251',
      port: 5353,
      interface: '192.168.1.5',
      bind: '0.0.0.0',
    });
    // Any address in 224.0.0.0/4 is a group; the ones around it are hosts.
    expect(mdnsOptionsFor({ ...MDNS_TARGET, address: '239.255.255.250' })).not.toHaveProperty('multicast');
    expect(mdnsOptionsFor({ ...MDNS_TARGET, address: '223.255.255.255' })).toMatchObject({
      multicast: false,
    });
    expect(mdnsOptionsFor({ ...MDNS_TARGET, address: '240.0.0.1' })).toMatchObject({ multicast: false });
  });

  it('a driver whose bridge moved to another address finds it again by bridge id and reconnects there', async () => {
    const { bridge, options } = await bridgeWithKey();
    cleanup.push(() => bridge.stop());
    const { opts } = await responderFor(bridge);
    const sink = new RecordingSink();
    const driver: HueDriver = createHueDriver({
      id: 'hue',
      options: { ...options, refind: (id: string) => refindBridge(id, opts) },
      sink,
      log: pino({ level: 'silent' }),
      signal: new AbortController().signal,
    });
    cleanup.push(() => driver.stop());
    await driver.start();
    await sink.waitFor((r) => r.kind === 'connection' && r.status.connected);
    const before = bridge.port;
    const from = sink.reports.length;
    await bridge.move();
    expect(bridge.port).not.toBe(before);
    await sink.waitFor((r) => r.kind === 'connection' && r.status.connected, from);
    expect(driver.connection().detail).toMatchObject({ host: '127.0.0.1', port: bridge.port });
  });

  it('ignores answers without a valid bridge id or an address', () => {
    const instance = `Hue Bridge - X.${HUE_SERVICE}`;
    const other = `Hue Bridge - Y.${HUE_SERVICE}`;
    expect(
      bridgesFromRecords([
        record(HUE_SERVICE, 'PTR', instance),
        record(instance, 'SRV', { target: 'x.local', port: 443 }),
        record(instance, 'TXT', [Buffer.from('bridgeid=001788fffe4a5b6c')]),
        // no A record for x.local
        record(HUE_SERVICE, 'PTR', other),
        record(other, 'SRV', { target: 'y.local', port: 443 }),
        record(other, 'TXT', ['bridgeid=not-a-bridge']),
        record('y.local', 'A', '192.168.1.22'),
      ]),
    ).toEqual([]);
  });
});
