import type { HearthRouter } from '../../../core/http/types.ts';
import type { AuthServices } from '../services.ts';
import { authenticateClient } from './client-auth.ts';
import { oauthError } from './errors.ts';
import { authorizationCodeGrant, refreshTokenGrant } from './grant-authorization-code.ts';
import { clientCredentialsGrant } from './grant-client-credentials.ts';
import { readOAuthForm, required } from './params.ts';

export const GRANT_TYPES = ['authorization_code', 'client_credentials', 'refresh_token'] as const;

/** POST /oauth/token: parse, authenticate the client, run the grant, answer with no-store (RFC 6749 §5.1). */
export function mountTokenEndpoint(router: HearthRouter, s: AuthServices): void {
  router.post('/oauth/token', async (ctx) => {
    const body = await readOAuthForm(ctx);
    const grantType = required(body, 'grant_type');
    const client = authenticateClient(s, ctx, body);
    let response: object;
    try {
      switch (grantType) {
        case 'client_credentials':
          response = await clientCredentialsGrant(s, client, body);
          break;
        case 'authorization_code':
          response = await authorizationCodeGrant(s, client, body);
          break;
        case 'refresh_token':
          response = await refreshTokenGrant(s, client, body);
          break;
        default:
          throw oauthError(400, 'unsupported_grant_type', `grant type ${grantType} is not supported`);
      }
    } catch (err) {
      const action = grantType === 'client_credentials' ? 'client_credentials.denied' : 'token.issue_denied';
      void s.audit.record(action, { client_id: client.id, detail: (err as Error).message });
      throw err;
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Pragma', 'no-cache');
    ctx.body = response;
  });
}
