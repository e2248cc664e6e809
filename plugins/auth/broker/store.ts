import type { DocStore, PluginStore } from '../../../core/sdk.ts';
import { toDict } from '../state/collections.ts';
import type { BrokerData } from './model.ts';

const has = (v: unknown, key: string, fields: string[]): boolean =>
  typeof v === 'object' &&
  v !== null &&
  (v as Record<string, unknown>).id === key &&
  fields.every((f) => typeof (v as Record<string, unknown>)[f] === 'string');

/** Opens `auth.broker.json` (providers and grants) as null-prototype collections. */
export async function openBrokerStore(store: PluginStore): Promise<DocStore<BrokerData>> {
  const doc = await store.open<BrokerData>('broker', { providers: {}, grants: {} });
  doc.data.providers = toDict<BrokerData['providers'][string]>(doc.data.providers, (k, v) =>
    has(v, k, ['slug', 'display_name', 'protocol', 'config_sealed']),
  ).dict;
  doc.data.grants = toDict<BrokerData['grants'][string]>(doc.data.grants, (k, v) =>
    has(v, k, ['user_id', 'broker_provider_id', 'enc_backend']),
  ).dict;
  return doc;
}
