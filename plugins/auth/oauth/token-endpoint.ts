import type { HearthRouter } from '../../../core/sdk.ts';
import type { AuthServices } from '../services.ts';
import { authenticateClient } from './client-auth.ts';
import { tokenRequestProof } from './dpop.ts';
import { oauthError } from './errors.ts';
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

/** POST /oauth/token: parse, authenticate the client, run the grant, answer with no-store (RFC 6749 §5.1). */
export function mountTokenEndpoint(router: HearthRouter, s: AuthServices): void {
  router.post('/oauth/token', async (ctx) => {
    // RFC 9449 §8.2: a fresh nonce on every successful answer, so a client keeps one that is current.
    if (s.dpop.enabled && s.dpop.requireNonce) ctx.set('DPoP-Nonce', s.dpop.nonces.current());
    const body = await readOAuthForm(ctx);
    const grantType = required(body, 'grant_type');
    const client = authenticateClient(s, ctx, body);
    let response: object;
    try {
      const proof = tokenRequestProof(s.dpop, ctx, `${s.issuer()}/oauth/token`);
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
          if (!s.config.xaa.enabled)
            throw oauthError(400, 'unsupported_grant_type', 'jwt-bearer is disabled');
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
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Pragma', 'no-cache');
    ctx.body = response;
  });
}
