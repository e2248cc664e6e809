/** A simulated bridge with a key, and the driver options that reach it (fast timings for tests). */
import { createSocket } from 'node:dgram';
import {
  ids,
  SimulatedBridge,
  type SimulatedBridgeOptions,
} from '../../scripts/simulators/hue-bridge/bridge.ts';

export { ids, SimulatedBridge };

export async function bridgeWithKey(opts: SimulatedBridgeOptions = {}) {
  const bridge = await SimulatedBridge.start({ coalesceMs: 50, ...opts });
  const appKey = bridge.addKey();
  const options = {
    host: bridge.host,
    port: bridge.port,
    bridgeId: bridge.bridgeId,
    appKey,
    roots: [bridge.certs.rootPem],
    readTimeoutMs: 5000,
    backoffStepMs: 50,
    backoffMaxMs: 500,
  };
  return { bridge, appKey, options };
}

/** A free UDP port on loopback, for an mDNS responder there. */
export async function freeUdpPort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()));
  const { port } = s.address();
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}
