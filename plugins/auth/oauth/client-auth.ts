import type { Context } from 'koa';
import { verifySecret } from '../domain/secrets.ts';
import { type AuthServices, findClient } from '../services.ts';
import type { Client } from '../state/model.ts';
import { invalidClient, invalidRequest } from './errors.ts';
import { type Params, param } from './params.ts';

function basicCredentials(ctx: Context): { id: string; secret: string } | null {
  const header = ctx.get('authorization');
  if (!/^basic /i.test(header)) return null;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw invalidClient('malformed Basic credentials');
  // RFC 6749 §2.3.1: id and secret are form-urlencoded before base64
  try {
    return {
      id: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')),
      secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')),
    };
  } catch {
    throw invalidClient('malformed Basic credentials');
  }
}

/**
 * Authenticates the calling client with the method it registered (`client_secret_basic`,
 * `client_secret_post` or `none`). Every failure is `invalid_client`, without saying which part was wrong.
 */
export function authenticateClient(s: AuthServices, ctx: Context, body: Params): Client {
  const basic = basicCredentials(ctx);
  const postSecret = param(body, 'client_secret');
  const bodyId = param(body, 'client_id');
  // RFC 6749 §2.3: a client must not use more than one authentication method per request
  if (basic && postSecret !== undefined) throw invalidRequest('more than one client authentication method');
  if (basic && bodyId !== undefined && bodyId !== basic.id) throw invalidRequest('client_id does not match');
  const id = basic?.id ?? bodyId;
  if (!id) throw invalidClient('client authentication required');
  const client = findClient(s, id);
  if (client?.status !== 'active') throw invalidClient();
  const method = basic ? 'client_secret_basic' : postSecret !== undefined ? 'client_secret_post' : 'none';
  if (method !== client.token_endpoint_auth_method) throw invalidClient();
  if (method !== 'none') {
    const secret = basic?.secret ?? postSecret ?? '';
    if (!client.secret_hash || !verifySecret(s.keys.hmacSecret, secret, client.secret_hash))
      throw invalidClient();
  }
  return client;
}
