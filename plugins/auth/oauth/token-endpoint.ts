import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HearthRouter, HttpApi } from '../../../core/sdk.ts';
import type { AuthServices } from '../services.ts';
import { authenticateClient } from './client-auth.ts';
import { tokenRequestProof } from './dpop.ts';
import { oauthError, oauthErrorBody } from './errors.ts';
import { authorizationCodeGrant, refreshTokenGrant } from './grant-authorization-code.ts';
import { clientCredentialsGrant } from './grant-client-credentials.ts';
import { JWT_BEARER, jwtBearerGrant } from './grant-jwt-bearer.ts';
import { TOKEN_EXCHANGE, tokenExchangeGrant } from './grant-token-exchange.ts';
import { readOAuthForm, required } from './params.ts';

const BASE_GRANTS = ['authorization_code', 'client_credentials', 'refresh_token'];

/** The grant types this server accepts (and advertises), given its settings. */
export const grantTypes = (s: AuthServices): string[] => [
  ...BASE_GRANTS,
  ...(s.config.token_exchange.enabled ? [TOKEN_EXCHANGE] : []),
  ...(s.config.xaa.enabled ? [JWT_BEARER] : []),
];

/** One token request as both ways of serving it see it: Node's request and response, the peer's address. */
interface TokenCall {
  req: IncomingMessage;
  res: ServerResponse;
  headers: IncomingMessage['headers'];
  ip: string;
}

/**
 * POST /oauth/token: parse, authenticate the client, run the grant; returns the JSON answer, with
 * `Cache-Control: no-store` and `Pragma: no-cache` set (RFC 6749 §5.1). Errors are thrown as OAuth errors.
 */
async function tokenAnswer(s: AuthServices, call: TokenCall): Promise<object> {
  const { res } = call;
  // RFC 9449 §8.2: a fresh nonce on every successful answer, so a client keeps one that is current.
  if (s.dpop.enabled && s.dpop.requireNonce) res.setHeader('DPoP-Nonce', s.dpop.nonces.current());
  const body = await readOAuthForm(call);
  const grantType = required(body, 'grant_type');
  const client = authenticateClient(s, call, body);
  let response: object;
  try {
    const proof = tokenRequestProof(s.dpop, call, `${s.issuer()}/oauth/token`);
    switch (grantType) {
      case 'client_credentials':
        response = await clientCredentialsGrant(s, client, body, proof);
        break;
      case 'authorization_code':
        response = await authorizationCodeGrant(s, client, body, proof);
        break;
      case 'refresh_token':
        response = await refreshTokenGrant(s, client, body, proof);
        break;
      case TOKEN_EXCHANGE:
        if (!s.config.token_exchange.enabled)
          throw oauthError(400, 'unsupported_grant_type', 'token exchange is disabled');
        response = await tokenExchangeGrant(s, client, body, proof);
        break;
      case JWT_BEARER:
        if (!s.config.xaa.enabled) throw oauthError(400, 'unsupported_grant_type', 'jwt-bearer is disabled');
        response = await jwtBearerGrant(s, client, body, proof);
        break;
      default:
        throw oauthError(400, 'unsupported_grant_type', `grant type ${grantType} is not supported`);
    }
  } catch (err) {
    const action =
      grantType === 'client_credentials'
        ? 'client_credentials.denied'
        : grantType === TOKEN_EXCHANGE
          ? 'token.exchange_denied'
          : grantType === JWT_BEARER
            ? 'jwt_bearer.denied'
            : 'token.issue_denied';
    void s.audit.record(action, { client_id: client.id, detail: (err as Error).message });
    throw err;
  }
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Pragma', 'no-cache');
  return response;
}

/**
 * Mounts POST /oauth/token on the router, and serves the exact `POST /oauth/token` on the auth listener
 * ahead of its Koa stack as well (`HttpApi.direct`): Koa's context, middleware chain and routing were a
 * tenth of a token's CPU. Both run `tokenAnswer`; the listener gives the direct route the request id,
 * `nosniff`, the access-log line, the latency metric and OAuth-shaped errors, as the router does. Requests
 * the direct route does not take (a trailing slash, a hub not yet ready) reach the router.
 */
export function mountTokenEndpoint(
  router: HearthRouter,
  http: HttpApi,
  listener: string,
  s: AuthServices,
): void {
  router.post('/oauth/token', async (ctx) => {
    ctx.body = await tokenAnswer(s, ctx);
  });
  http.direct(listener, {
    method: 'POST',
    path: '/oauth/token',
    errorBody: oauthErrorBody,
    handle: ({ req, res }) =>
      // Koa's `ctx.ip` with `proxy` off, as the router's route sees it.
      tokenAnswer(s, { req, res, headers: req.headers, ip: req.socket.remoteAddress ?? '' }),
  });
}
