/** A simulated bridge with a key, and the driver options that reach it (fast timings for tests). */
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
