import { readFileSync } from 'node:fs';
import type { AuthConfig } from '../config.ts';
import { SafeFetchError, safeFetch } from '../domain/safe-fetch.ts';
import { type AuthServices, findClient, nowIso } from '../services.ts';
import { buildClient, ClientMetadataError, ID_TOKEN_ALGS } from '../state/client-factory.ts';
import type { Client } from '../state/model.ts';

/**
 * Client ID Metadata Documents: a client whose `client_id` is an https URL publishes its metadata (RFC 7591
 * members) at that URL, and the server fetches it instead of requiring a registration. The client becomes
 * an ordinary client record (`registration_source: cimd`, id and `cimd_url` the URL), refreshed when its
 * cache lifetime has passed; see the README section "Client ID Metadata Documents".
 */
const MAX_BYTES = 5 * 1024; // the draft suggests 5 kilobytes as a limit
const TIMEOUT_MS = 5000;
const MIN_TTL_SEC = 60;
const MAX_TTL_SEC = 24 * 3600;
const DEFAULT_TTL_SEC = 3600;
const FAILURE_TTL_MS = 60_000;
const MAX_IN_FLIGHT = 4;
const MAX_FAILURES = 1000;
const SHARED_SECRET_METHODS = ['client_secret_basic', 'client_secret_post', 'client_secret_jwt'];
const ALLOWED_GRANTS = ['authorization_code', 'refresh_token'];

export class CimdError extends Error {}

/** True when a client_id has the shape of a metadata document URL (the only ids that may be fetched). */
export function isCimdUrl(id: string): boolean {
  return id.startsWith('https://');
}

/** The URL rules of the client identifier: https, a path, no dot segments, no fragment, no credentials. */
export function cimdUrlProblem(id: string): string | null {
  let url: URL;
  try {
    url = new URL(id);
  } catch {
    return 'the client_id is not a URL';
  }
  if (url.protocol !== 'https:') return 'the client_id URL must use https';
  if (url.username || url.password) return 'the client_id URL must not carry credentials';
  if (id.includes('#')) return 'the client_id URL must not have a fragment';
  if (url.pathname === '/' || url.pathname === '') return 'the client_id URL must have a path';
  // Checked on the raw string: the URL parser would already have removed them.
  const rawPath = id.slice(id.indexOf('/', 'https://'.length)).split('?')[0]!;
  if (
    rawPath
      .split('/')
      .some((seg) => seg === '.' || seg === '..' || /^%2e%2e?$/i.test(seg) || /^\.%2e$/i.test(seg))
  )
    return 'the client_id URL must not have dot segments';
  if (url.href !== id) return 'the client_id URL must be in normalised form';
  return null;
}

/** Cache lifetime from the document's Cache-Control, within bounds (the draft lets the server set them). */
export function cacheSeconds(cacheControl: string): number {
  if (/(^|,)\s*(no-store|no-cache)\s*(,|$)/i.test(cacheControl)) return MIN_TTL_SEC;
  const m = /(^|,)\s*max-age\s*=\s*"?(\d+)"?/i.exec(cacheControl);
  const ttl = m ? Number(m[2]) : DEFAULT_TTL_SEC;
  return Math.min(MAX_TTL_SEC, Math.max(MIN_TTL_SEC, ttl));
}

const native = (uris: string[]) =>
  uris.some((u) => /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)[:/]/.test(u) || !/^https?:/.test(u));

/** The document → a client record, or CimdError naming what is wrong with it. */
export function clientFromDocument(url: string, text: string, pepper: Buffer): Client {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new CimdError('the metadata document is not JSON');
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc))
    throw new CimdError('the metadata document is not a JSON object');
  const d = doc as Record<string, unknown>;
  // The document names itself: client_id must be exactly the URL it was fetched from.
  if (d.client_id !== url) throw new CimdError('client_id in the document differs from its URL');
  if (d.client_secret !== undefined || d.client_secret_expires_at !== undefined)
    throw new CimdError('a metadata document must not carry a client secret');
  const method = d.token_endpoint_auth_method ?? 'none';
  if (typeof method !== 'string' || SHARED_SECRET_METHODS.includes(method))
    throw new CimdError('a metadata document cannot use a shared-secret authentication method');
  if (method !== 'none') throw new CimdError(`token_endpoint_auth_method ${method} is not supported`);
  const strings = (name: string, fallback: string[]): string[] => {
    const v = d[name];
    if (v === undefined) return fallback;
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string'))
      throw new CimdError(`${name} must be an array of strings`);
    return v as string[];
  };
  const redirectUris = strings('redirect_uris', []);
  const grants = strings('grant_types', ['authorization_code']);
  const refused = grants.find((g) => !ALLOWED_GRANTS.includes(g));
  if (refused) throw new CimdError(`grant type ${refused} is not available to metadata-document clients`);
  const name = typeof d.client_name === 'string' && d.client_name.trim() ? d.client_name : new URL(url).host;
  const appType =
    d.application_type === 'native' || d.application_type === 'web'
      ? d.application_type
      : native(redirectUris)
        ? 'native'
        : 'web';
  const alg = d.id_token_signed_response_alg;
  if (alg !== undefined && !(typeof alg === 'string' && (ID_TOKEN_ALGS as readonly string[]).includes(alg)))
    throw new CimdError(`id_token_signed_response_alg must be one of ${ID_TOKEN_ALGS.join(', ')}`);
  try {
    const { client } = buildClient(
      {
        name: name.slice(0, 200),
        redirect_uris: redirectUris,
        grant_types: grants,
        response_types: strings('response_types', ['code']),
        token_endpoint_auth_method: 'none',
        scope: '',
        resources: [],
        application_type: appType,
        agent: false,
        agent_description: '',
        source: 'cimd',
        id_token_signed_response_alg: alg as string | undefined,
      },
      pepper,
    );
    return { ...client, id: url, cimd_url: url };
  } catch (err) {
    if (err instanceof ClientMetadataError) throw new CimdError(err.message);
    throw err;
  }
}

/** Fetches, caches and stores metadata-document clients; one fetch per URL at a time, a few at once. */
export function createCimdResolver(settings: AuthConfig['cimd']) {
  const inFlight = new Map<string, Promise<Client>>();
  const failures = new Map<string, { until: number; message: string }>();
  const ca = settings.ca_file ? readFileSync(settings.ca_file, 'utf8') : undefined;

  async function fetchAndStore(s: AuthServices, url: string, previous: Client | undefined): Promise<Client> {
    let fetched: Awaited<ReturnType<typeof safeFetch>>;
    try {
      fetched = await safeFetch(new URL(url), {
        maxBytes: MAX_BYTES,
        timeoutMs: TIMEOUT_MS,
        allowPrivate: settings.allow_private_networks,
        ca,
      });
    } catch (err) {
      throw new CimdError(err instanceof SafeFetchError ? err.message : 'the document could not be fetched');
    }
    if (!/^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i.test(fetched.contentType))
      throw new CimdError('the metadata document is not served as application/json');
    const fresh = clientFromDocument(url, fetched.body, s.keys.hmacSecret);
    const now = Date.now();
    const client: Client = {
      ...fresh,
      // The record keeps its identity and status across refreshes; the metadata follows the document.
      ...(previous ? { status: previous.status, issued_at: previous.issued_at } : {}),
      updated_at: nowIso(),
      cimd_expires_at: new Date(now + cacheSeconds(fetched.cacheControl) * 1000).toISOString(),
    };
    const evicted = previous ? [] : roomFor(s);
    await s.data.commit((d) => {
      for (const id of evicted) delete d.clients[id];
      d.clients[url] = client;
    });
    if (!previous) void s.audit.record('client.registered', { client_id: url, detail: 'cimd' });
    return client;
  }

  /**
   * Keeps at most `max_clients` metadata-document clients: the ids to drop for one more, the least recently
   * refreshed among those no user has an active consent for. None to drop: the new one is refused.
   */
  function roomFor(s: AuthServices): string[] {
    const max = settings.max_clients;
    const cimd = Object.values(s.data.data.clients).filter((c) => c.registration_source === 'cimd');
    if (cimd.length < max) return [];
    const consented = new Set(
      Object.values(s.data.data.consent_grants)
        .filter((g) => !g.revoked_at)
        .map((g) => g.client_id),
    );
    const drop = cimd
      .filter((c) => !consented.has(c.id))
      .sort((a, b) => a.updated_at.localeCompare(b.updated_at))
      .slice(0, cimd.length - max + 1)
      .map((c) => c.id);
    if (cimd.length - drop.length >= max)
      throw new CimdError('too many metadata-document clients are known; an administrator must remove some');
    return drop;
  }

  return {
    /**
     * The client for a URL client_id: the stored record while its cache lifetime lasts, else the document
     * fetched now. Throws CimdError with a reason safe to show.
     */
    async resolve(s: AuthServices, url: string): Promise<Client> {
      if (!settings.enabled) throw new CimdError('this server does not accept metadata-document clients');
      const problem = cimdUrlProblem(url);
      if (problem) throw new CimdError(problem);
      const stored = findClient(s, url);
      if (stored && stored.registration_source !== 'cimd') return stored;
      if (stored?.cimd_expires_at && Date.parse(stored.cimd_expires_at) > Date.now()) return stored;
      const failed = failures.get(url);
      if (failed && failed.until > Date.now()) throw new CimdError(failed.message);
      const running = inFlight.get(url);
      if (running) return running;
      if (inFlight.size >= MAX_IN_FLIGHT)
        throw new CimdError('the server is busy fetching other documents; try again');
      const p = fetchAndStore(s, url, stored).then(
        (c) => {
          failures.delete(url);
          return c;
        },
        (err: unknown) => {
          const message = err instanceof CimdError ? err.message : 'the document could not be used';
          if (failures.size >= MAX_FAILURES) failures.delete(failures.keys().next().value as string);
          failures.set(url, { until: Date.now() + FAILURE_TTL_MS, message });
          throw err instanceof CimdError ? err : new CimdError(message);
        },
      );
      inFlight.set(url, p);
      try {
        return await p;
      } finally {
        inFlight.delete(url);
      }
    },
  };
}

export type CimdResolver = ReturnType<typeof createCimdResolver>;
