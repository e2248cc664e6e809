import { createPublicKey, type KeyObject } from 'node:crypto';

/**
 * Signing keys of trusted identity providers, fetched from their JWKS and cached with bounds: a response
 * of at most 64 KiB and 20 keys, 5 s to answer, one fetch in flight per provider, kept `ttlSec`, and an
 * unknown `kid` refetches at most once a minute (so assertions with made-up kids cannot turn the server
 * into a request generator). Only public keys of the algorithms we verify are kept.
 */
const MAX_BYTES = 64 * 1024;
const MAX_KEYS = 20;
const TIMEOUT_MS = 5000;
const MISS_REFETCH_MS = 60_000;
const MAX_PROVIDERS = 1000;

export interface IdpKey {
  kid: string;
  kty: string;
  key: KeyObject;
}

interface Entry {
  keys: IdpKey[];
  fetchedAt: number;
  expiresAt: number;
  lastMissFetch: number;
  inFlight?: Promise<IdpKey[]>;
}

export class JwksFetchError extends Error {}

async function readLimited(res: Response): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BYTES) {
      await reader.cancel();
      throw new JwksFetchError('the key set is larger than 64 KiB');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function fetchJson(url: string): Promise<unknown> {
  const u = new URL(url);
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new JwksFetchError('only http(s) URLs');
  let res: Response;
  try {
    res = await fetch(u, { redirect: 'error', signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch {
    throw new JwksFetchError(`fetching ${u.origin}${u.pathname} failed`);
  }
  if (!res.ok) throw new JwksFetchError(`${u.origin}${u.pathname} answered ${res.status}`);
  const text = await readLimited(res);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new JwksFetchError('the response is not JSON');
  }
}

function parseKeys(doc: unknown): IdpKey[] {
  const list = doc && typeof doc === 'object' ? (doc as { keys?: unknown }).keys : undefined;
  if (!Array.isArray(list)) throw new JwksFetchError('not a JWK set');
  const out: IdpKey[] = [];
  for (const jwk of list.slice(0, MAX_KEYS)) {
    if (!jwk || typeof jwk !== 'object') continue;
    const j = jwk as Record<string, unknown>;
    if (typeof j.kid !== 'string' || (j.use !== undefined && j.use !== 'sig')) continue;
    if (j.d !== undefined) continue; // never a private key
    try {
      const key = createPublicKey({ key: j as import('node:crypto').JsonWebKey, format: 'jwk' });
      out.push({ kid: j.kid, kty: String(j.kty), key });
    } catch {
      // A key we cannot read is skipped, not fatal: the others may still verify.
    }
  }
  return out;
}

export function createIdpKeyCache(ttlSec: number, now: () => number = () => Date.now()) {
  const entries = new Map<string, Entry>();

  async function jwksUriOf(issuer: string, configured: string): Promise<string> {
    if (configured) return configured;
    const base = issuer.replace(/\/+$/, '');
    const meta = await fetchJson(`${base}/.well-known/openid-configuration`).catch(() =>
      fetchJson(`${base}/.well-known/oauth-authorization-server`),
    );
    const uri = meta && typeof meta === 'object' ? (meta as { jwks_uri?: unknown }).jwks_uri : undefined;
    if (typeof uri !== 'string') throw new JwksFetchError('the provider metadata names no jwks_uri');
    return uri;
  }

  async function load(idpId: string, issuer: string, jwksUri: string): Promise<IdpKey[]> {
    const entry = entries.get(idpId);
    if (entry?.inFlight) return entry.inFlight;
    const run = (async () => {
      const keys = parseKeys(await fetchJson(await jwksUriOf(issuer, jwksUri)));
      const t = now();
      if (!entries.has(idpId) && entries.size >= MAX_PROVIDERS) entries.clear();
      entries.set(idpId, { keys, fetchedAt: t, expiresAt: t + ttlSec * 1000, lastMissFetch: t });
      return keys;
    })();
    const placeholder: Entry = entry ?? { keys: [], fetchedAt: 0, expiresAt: 0, lastMissFetch: 0 };
    entries.set(idpId, { ...placeholder, inFlight: run });
    try {
      return await run;
    } catch (err) {
      const cur = entries.get(idpId);
      if (cur) delete cur.inFlight;
      throw err;
    }
  }

  return {
    /** The key for `kid`, fetching the set when it is missing, expired, or lacks that kid (rate limited). */
    async key(
      idp: { id: string; issuer: string; jwks_uri: string },
      kid: string,
    ): Promise<IdpKey | undefined> {
      const t = now();
      let entry = entries.get(idp.id);
      if (!entry || entry.expiresAt <= t || entry.fetchedAt === 0) {
        await load(idp.id, idp.issuer, idp.jwks_uri);
        entry = entries.get(idp.id);
      }
      let found = entry?.keys.find((k) => k.kid === kid);
      if (!found && entry && t - entry.lastMissFetch >= MISS_REFETCH_MS) {
        entry.lastMissFetch = t;
        await load(idp.id, idp.issuer, idp.jwks_uri);
        found = entries.get(idp.id)?.keys.find((k) => k.kid === kid);
      }
      return found;
    },
    /** Fetches now (POST /admin/idps/{id}/refresh-keys). */
    refresh: (idp: { id: string; issuer: string; jwks_uri: string }) =>
      load(idp.id, idp.issuer, idp.jwks_uri),
    info(idpId: string): { kids: string[]; fetched_at: string } | undefined {
      const e = entries.get(idpId);
      if (!e || e.fetchedAt === 0) return undefined;
      return { kids: e.keys.map((k) => k.kid), fetched_at: new Date(e.fetchedAt).toISOString() };
    },
    forget: (idpId: string) => entries.delete(idpId),
  };
}

export type IdpKeyCache = ReturnType<typeof createIdpKeyCache>;
