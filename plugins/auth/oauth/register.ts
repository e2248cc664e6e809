import type { HearthRouter } from '../../../core/sdk.ts';
import { createRateLimiter } from '../domain/rate-limit.ts';
import type { AuthServices } from '../services.ts';
import {
  asStringArray,
  buildClient,
  type ClientInput,
  ClientMetadataError,
  idTokenAlg,
} from '../state/client-factory.ts';
import { oauthError } from './errors.ts';
import { bodyOf } from './params.ts';

const metadataError = (d: string) => oauthError(400, 'invalid_client_metadata', d); // RFC 7591 §3.2.2

/**
 * The name of a client that registered none (RFC 7591 §2 leaves it optional): the host its codes are sent
 * to, which the consent page can show truthfully, or the scheme of a native app's private-use URI.
 */
function defaultName(redirects: string[]): string {
  const first = redirects[0];
  if (first === undefined) return 'Unnamed application';
  try {
    const url = new URL(first);
    return (url.hostname || url.protocol.replace(/:$/, '')).slice(0, 200) || 'Unnamed application';
  } catch {
    return 'Unnamed application'; // the redirect URI check refuses it with its own message
  }
}

/** RFC 7591 request → client input. `scope` is discarded (spec rule 3); unknown members are ignored. */
function readRequest(s: AuthServices, body: Record<string, unknown>): ClientInput {
  const str = (name: string, req: boolean): string | undefined => {
    const v = body[name];
    if (v === undefined && !req) return undefined;
    if (typeof v !== 'string') throw metadataError(`${name} is required and must be a string`);
    return v;
  };
  const arr = (name: string, fallback?: string[]) => {
    if (body[name] === undefined) {
      if (fallback) return fallback;
      throw metadataError(`${name} is required`);
    }
    return asStringArray(body[name], name);
  };
  const appType = str('application_type', false) ?? 'web';
  if (appType !== 'web' && appType !== 'native')
    throw metadataError('application_type must be web or native');
  if (body.agent !== undefined && typeof body.agent !== 'boolean')
    throw metadataError('agent must be a boolean');
  // RFC 7591 §2: members left out take their defaults (openid-client's dynamicClientRegistration sends
  // only what its caller names, often just redirect_uris).
  const grants = arr('grant_types', ['authorization_code']);
  const userInLoop = !grants.includes('client_credentials');
  const redirects = arr('redirect_uris');
  return {
    name: str('client_name', false) ?? defaultName(redirects),
    redirect_uris: redirects,
    grant_types: grants,
    response_types: arr('response_types', ['code']),
    token_endpoint_auth_method: str('token_endpoint_auth_method', false) ?? 'client_secret_basic',
    // The ceiling comes from the server setting, only for clients that keep a user in the loop.
    scope: userInLoop ? s.config.default_client_scope : '',
    resources: [],
    application_type: appType,
    agent: body.agent === true,
    agent_description: str('agent_description', false) ?? '',
    source: 'dcr',
    id_token_signed_response_alg: str('id_token_signed_response_alg', false),
  };
}

export function mountRegister(router: HearthRouter, s: AuthServices): void {
  const limiter = createRateLimiter({ ratePerSec: 10, burst: 20, maxKeys: 10_000 });
  router.post('/oauth/register', async (ctx) => {
    const wait = limiter.take(ctx.ip);
    if (wait > 0) {
      throw oauthError(429, 'slow_down', 'too many registrations; try again later', {
        headers: { 'Retry-After': String(wait) },
      });
    }
    const dcr = s.dcr();
    if (dcr.mode === 'admin_only') throw oauthError(403, 'access_denied', 'registration is disabled');
    let input: ClientInput;
    let built: ReturnType<typeof buildClient>;
    try {
      input = readRequest(s, bodyOf(ctx));
      if (dcr.mode === 'approved_redirects') {
        const refused = input.redirect_uris.find((u) => !dcr.approved_redirects.includes(u));
        if (refused !== undefined)
          throw oauthError(400, 'invalid_redirect_uri', `redirect URI not approved: ${refused}`);
      }
      built = buildClient(input, s.keys.hmacSecret);
    } catch (err) {
      if (!(err instanceof ClientMetadataError)) throw err;
      const code = err.field === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata';
      throw oauthError(400, code, err.message);
    }
    const { client, secret } = built;
    await s.data.commit((d) => {
      d.clients[client.id] = client;
    });
    void s.audit.record('client.registered', { client_id: client.id, ip: ctx.ip, detail: client.name });
    ctx.status = 201;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      client_id: client.id,
      ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
      client_id_issued_at: Math.floor(Date.parse(client.issued_at) / 1000),
      redirect_uris: client.redirect_uris,
      client_name: client.name,
      grant_types: client.grant_types,
      response_types: client.response_types,
      token_endpoint_auth_method: client.token_endpoint_auth_method,
      application_type: client.application_type,
      id_token_signed_response_alg: idTokenAlg(client),
      ...(client.scope ? { scope: client.scope } : {}),
      agent: client.agent,
      ...(client.agent_description ? { agent_description: client.agent_description } : {}),
    };
  });
}
