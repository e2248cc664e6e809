/**
 * A Matter controller for tests (matter.js, as Home Assistant's Matter server uses it): commissions a
 * Hearth bridge on loopback with its manual pairing code and drives it like a phone would. No mDNS:
 * the bridge's address is given (the known-address path of commissioning), and the CASE reconnect at the
 * end of commissioning is pointed at the same address.
 */
import '@matter/main/platform';
import {
  type ClientNode,
  Environment,
  MemoryStorageDriver,
  ServerNode,
  StorageManager,
  StorageService,
  VendorId,
} from '@matter/main';
import { ControllerBehavior } from '@matter/main/node';
import { PeerSet } from '@matter/main/protocol';

export interface Bridged {
  /** The endpoint as the controller sees it, by the Hearth id in BridgedDeviceBasicInformation.uniqueId. */
  // biome-ignore lint/suspicious/noExplicitAny: client endpoints are typed by the clusters the peer reports
  endpoint: any;
  number: number;
  deviceType: number;
}

let counter = 0;

export class TestController {
  readonly node: ServerNode;
  #target: { ip: string; port: number } | null = null;

  private constructor(node: ServerNode) {
    this.node = node;
    node.env.get(PeerSet).added.on((peer) => {
      if (!peer.descriptor.operationalAddress && this.#target)
        peer.descriptor.operationalAddress = { type: 'udp', ...this.#target };
    });
  }

  /** A controller of one ecosystem: its fabric label and vendor id are what the bridge lists. */
  static async create(opts: { label: string; vendorId: number }): Promise<TestController> {
    counter += 1;
    const env = new Environment(`test-controller-${counter}`, Environment.default);
    const storage = new StorageService(env);
    storage.open = async () => {
      const m = new StorageManager(new MemoryStorageDriver());
      await m.initialize();
      return m;
    };
    const node = await ServerNode.create(ServerNode.RootEndpoint.with(ControllerBehavior), {
      id: `controller${counter}`,
      environment: env,
      network: { port: 0, listeningAddressIpv6: '::1', ipv4: false },
      controller: { adminFabricLabel: opts.label, ble: false },
      basicInformation: { vendorId: VendorId(opts.vendorId), productId: 0x8000 },
    });
    await node.start();
    return new TestController(node);
  }

  /** Commissions the bridge listening on `[::1]:port` with its 11-digit manual code. */
  async commission(port: number, manualPairingCode: string): Promise<ClientNode> {
    this.#target = { ip: '::1', port };
    const peer = await this.node.peers.forDescriptor({
      addresses: [{ type: 'udp', ip: '::1', port }],
      deviceIdentifier: `bridge-${port}-${Date.now()}`,
    });
    await peer.commission({ pairingCode: manualPairingCode, timeout: 15_000 } as never);
    return peer;
  }

  /** The bridged endpoints under the peer's aggregator, by Hearth id. */
  static bridged(peer: ClientNode): Map<string, Bridged> {
    const out = new Map<string, Bridged>();
    const walk = (ep: { parts: Iterable<unknown> }) => {
      // biome-ignore lint/suspicious/noExplicitAny: see Bridged.endpoint
      for (const part of ep.parts as Iterable<any>) {
        const info = part.state.bridgedDeviceBasicInformation;
        if (info?.uniqueId) {
          const types = part.state.descriptor.deviceTypeList as Array<{ deviceType: number }>;
          out.set(info.uniqueId, {
            endpoint: part,
            number: part.number,
            deviceType: types.find((t) => t.deviceType !== 0x13)?.deviceType ?? -1,
          });
        }
        walk(part);
      }
    };
    walk(peer);
    return out;
  }

  async close(): Promise<void> {
    await this.node.close();
  }
}
