import { checkUpstreamUrl, getJson, UpstreamError } from './http.ts';

/** What the flows need from a provider's OpenID discovery document (OpenID Connect Discovery §3). */
export interface ProviderMetadata {
  issuer: string;
  authorization_endpoint: URL;
  token_endpoint: URL;
  jwks_uri: string;
  /** RFC 9207: the provider sends `iss` in authorization responses, so a missing one is refused. */
  iss_parameter_supported: boolean;
}

const TTL_MS = 3600_000;
const MAX_ENTRIES = 100;

/**
 * Discovery documents cached per issuer for an hour (at most 100 issuers, one fetch in flight each). The
 * document's `issuer` must equal the configured one exactly (OpenID Connect Discovery §4.3), which keeps a
 * provider from speaking for another.
 */
export function createMetadataCache(now: () => number = Date.now) {
  const entries = new Map<string, { at: number; value: Promise<ProviderMetadata> }>();

  async function load(issuer: string): Promise<ProviderMetadata> {
    const base = checkUpstreamUrl(issuer).href.replace(/\/+$/, '');
    const doc = await getJson(new URL(`${base}/.well-known/openid-configuration`));
    if (doc.issuer !== issuer) throw new UpstreamError('the provider metadata names another issuer');
    return {
      issuer,
      authorization_endpoint: checkUpstreamUrl(doc.authorization_endpoint),
      token_endpoint: checkUpstreamUrl(doc.token_endpoint),
      jwks_uri: checkUpstreamUrl(doc.jwks_uri).href,
      iss_parameter_supported: doc.authorization_response_iss_parameter_supported === true,
    };
  }

  return {
    get(issuer: string): Promise<ProviderMetadata> {
      const hit = entries.get(issuer);
      if (hit && now() - hit.at < TTL_MS) return hit.value;
      if (!hit && entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
      const value = load(issuer);
      entries.set(issuer, { at: now(), value });
      // A failure is not cached: the next sign-in tries again.
      value.catch(() => {
        if (entries.get(issuer)?.value === value) entries.delete(issuer);
      });
      return value;
    },
  };
}

export type MetadataCache = ReturnType<typeof createMetadataCache>;
