import type { BrokerOptions, BrokerService } from './types.ts';

/**
 * The core's MQTT service: aedes embedded in this process, or, when `opts.external` is set, one shared
 * client to an external broker. Resolves once the embedded TCP listener is bound (port 0 works; read
 * `.port`); the external client connects in the background and retries with backoff. Each mode is
 * imported only when used: aedes and mqtt.js are not both worth their memory on a Pi.
 */
export async function createBroker(opts: BrokerOptions): Promise<BrokerService> {
  const { external } = opts;
  if (external) {
    const { createExternalBroker } = await import('./external.ts');
    return createExternalBroker({ ...opts, external });
  }
  const { createEmbeddedBroker } = await import('./embedded.ts');
  return createEmbeddedBroker(opts);
}
