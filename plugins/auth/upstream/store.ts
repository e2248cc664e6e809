import type { DocStore, PluginStore } from '../../../core/sdk.ts';
import { toDict } from '../state/collections.ts';
import type { UpstreamData } from './model.ts';

const isLink = (key: string, v: unknown): boolean => {
  if (typeof v !== 'object' || v === null) return false;
  const l = v as Record<string, unknown>;
  return (
    typeof l.iss === 'string' &&
    typeof l.sub === 'string' &&
    typeof l.user_id === 'string' &&
    key === `${l.iss} ${l.sub}`
  );
};

/** Opens `auth.upstream.json` with its links as a null-prototype collection (keys come from providers). */
export async function openUpstreamStore(store: PluginStore): Promise<DocStore<UpstreamData>> {
  const doc = await store.open<UpstreamData>('upstream', { links: {} });
  doc.data.links = toDict<UpstreamData['links'][string]>(doc.data.links, isLink).dict;
  return doc;
}
