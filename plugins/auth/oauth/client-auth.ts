import type { IncomingHttpHeaders } from 'node:http';
import { HttpError } from '../../../core/sdk.ts';
import { type AuthServices, findClient } from '../services.ts';
import type { Client } from '../state/model.ts';
import { invalidClient, invalidRequest, oauthError } from './errors.ts';
import { type Params, param } from './params.ts';

/** Form-urldecoding; most ids and secrets (UUIDs, base64url) have nothing to decode and are used as they are. */
const formDecode = (v: string): string =>
  v.includes('%') || v.includes('+') ? decodeURIComponent(v.replace(/\+/g, ' ')) : v;

/**
 * What client authentication reads of a request: its headers and the peer's address (a Koa context has
 * both, as does the token endpoint's route served without Koa).
 */
export interface Caller {
  headers: IncomingHttpHeaders;
  ip: string;
}

function basicCredentials(caller: Caller): { id: string; secret: string } | null {
  const header = caller.headers.authorization;
  if (header === undefined || !/^basic /i.test(header)) return null;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw invalidClient('malformed Basic credentials');
  // RFC 6749 §2.3.1: id and secret are form-urlencoded before base64
  try {
    return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    throw invalidClient('malformed Basic credentials');
  }
}

/**
 * Authenticates the calling client with the method it registered (`client_secret_basic`,
 * `client_secret_post` or `none`). Every failure is `invalid_client`, without saying which part was wrong.
 */
export function authenticateClient(s: AuthServices, caller: Caller, body: Params): Client {
  // A coarse per-IP bucket charged by failures only: guessing secrets from one address meets 429 (for the
  // right secret too, so the answer tells nothing), while a busy client that authenticates never pays.
  const wait = s.clientAuthFailures.wait(caller.ip);
  if (wait > 0)
    throw oauthError(429, 'slow_down', 'too many failed client authentications; try again later', {
      headers: { 'Retry-After': String(wait) },
    });
  try {
    return checkClient(s, caller, body);
  } catch (err) {
    if (err instanceof HttpError && err.code === 'invalid_client') s.clientAuthFailures.take(caller.ip);
    throw err;
  }
}

function checkClient(s: AuthServices, caller: Caller, body: Params): Client {
  const basic = basicCredentials(caller);
  const postSecret = param(body, 'client_secret');
  const bodyId = param(body, 'client_id');
  // RFC 6749 §2.3: a client must not use more than one authentication method per request
  if (basic && postSecret !== undefined) throw invalidRequest('more than one client authentication method');
  if (basic && bodyId !== undefined && bodyId !== basic.id) throw invalidRequest('client_id does not match');
  const id = basic?.id ?? bodyId;
  if (!id) throw invalidClient('client authentication required');
  const client = findClient(s, id);
  if (client?.status !== 'active') {
    s.verifiedSecrets.forget(id); // removed or suspended: nothing of its secret stays in memory
    throw invalidClient();
  }
  const method = basic ? 'client_secret_basic' : postSecret !== undefined ? 'client_secret_post' : 'none';
  if (method !== client.token_endpoint_auth_method) throw invalidClient();
  if (method !== 'none') {
    const secret = basic?.secret ?? postSecret ?? '';
    if (!client.secret_hash || !s.verifiedSecrets.verify(client.id, secret, client.secret_hash))
      throw invalidClient();
  }
  return client;
}
