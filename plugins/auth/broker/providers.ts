import type { AuthServices } from '../services.ts';
import { own } from '../state/collections.ts';
import type { BrokerProvider } from './model.ts';

const context = (id: string) => `broker-provider:${id}`;

/** Seals a provider's `config_data` text (it may hold the upstream client secret). */
export const sealConfig = (s: AuthServices, id: string, raw: string): string =>
  s.secrets.seal(raw, context(id));

/** The `config_data` text exactly as it was sent. Throws SecretUnavailableError when the key cannot open it. */
export const configText = (s: AuthServices, p: BrokerProvider): string =>
  s.secrets.open(p.config_sealed, context(p.id));

/** A broker provider by id or slug. */
export function findBrokerProvider(s: AuthServices, ref: string): BrokerProvider | undefined {
  const all = s.broker.data.providers;
  return own(all, ref) ?? Object.values(all).find((p) => p.slug === ref);
}
