import { createEmbeddedBroker } from './embedded.ts';
import { createExternalBroker } from './external.ts';
import type { BrokerOptions, BrokerService } from './types.ts';

/**
 * The core's MQTT service: aedes embedded in this process, or, when `opts.external` is set, one shared
 * client to an external broker. Resolves once the embedded TCP listener is bound (port 0 works; read
 * `.port`); the external client connects in the background and retries with backoff.
 */
export async function createBroker(opts: BrokerOptions): Promise<BrokerService> {
  const { external } = opts;
  if (external) return createExternalBroker({ ...opts, external });
  return createEmbeddedBroker(opts);
}
