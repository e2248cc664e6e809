import type { Context } from 'koa';
import { type HearthRouter, HttpError } from '../../../core/sdk.ts';
import type { AuthServices } from '../services.ts';
import type { VerifyAccessToken } from '../sites/verify.ts';
import { own } from '../state/collections.ts';
import { bodyOf } from './params.ts';

/**
 * RFC 6750 §3 challenge for the scheme the client used (RFC 9449 §7.1 for DPoP). Never a description that
 * repeats the token.
 */
function refuse(scheme: 'bearer' | 'dpop', status: 401 | 403, error: string): never {
  const challenge = scheme === 'dpop' ? 'DPoP' : 'Bearer';
  throw new HttpError(status, error, 'the access token is not valid for userinfo', {
    headers: { 'WWW-Authenticate': `${challenge} error="${error}"`, 'Cache-Control': 'no-store' },
  });
}

/**
 * OpenID Connect Core §5.3: the claims of the signed-in user for an access token carrying `openid` (from
 * the code flow, whatever resource it is for). `profile` adds `name`, `email` adds `email`. The token
 * comes in the `Authorization` header (`Bearer`, or `DPoP` with its proof), or as a POST form's `access_token`.
 */
export function mountUserinfo(router: HearthRouter, s: AuthServices, verify: VerifyAccessToken): void {
  const handler = async (ctx: Context) => {
    ctx.set('Access-Control-Allow-Origin', '*');
    const header = ctx.get('authorization');
    const m = /^(Bearer|DPoP)\s+(\S+)\s*$/i.exec(header);
    const scheme = m?.[1]?.toLowerCase() === 'dpop' ? 'dpop' : 'bearer';
    // RFC 6750 §2.2: a Bearer token may also come as the form parameter access_token of a POST (some OpenID
    // clients send it so); §2: one method per request, else invalid_request.
    const inBody =
      ctx.method === 'POST' && ctx.is('application/x-www-form-urlencoded')
        ? bodyOf(ctx).access_token
        : undefined;
    if (inBody !== undefined && (header || typeof inBody !== 'string' || inBody === ''))
      throw new HttpError(400, 'invalid_request', 'send the access token once, in the header or the form', {
        headers: { 'WWW-Authenticate': 'Bearer error="invalid_request"', 'Cache-Control': 'no-store' },
      });
    const presented = m?.[2] ?? inBody;
    // RFC 6750 §3.1: no credentials at all gets a bare challenge.
    if (!presented)
      throw new HttpError(401, 'invalid_token', 'an access token is required', {
        headers: { 'WWW-Authenticate': 'Bearer' },
      });
    const proof = ctx.headers.dpop;
    const token = await verify(presented, {
      presentation: {
        scheme,
        method: ctx.method,
        // RFC 9449 §4.3 item 9: the advertised userinfo URL only, never one built from the Host header.
        urls: [`${s.issuer()}/oauth/userinfo`],
        ...(proof ? { proof: Array.isArray(proof) ? proof.join(',') : proof } : {}),
      },
    });
    if (!token) refuse(scheme, 401, 'invalid_token');
    const user = own(s.data.data.users, token.sub);
    if (!user) refuse(scheme, 401, 'invalid_token');
    if (!token.scopes.includes('openid')) refuse(scheme, 403, 'insufficient_scope');
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      sub: user.id,
      ...(token.scopes.includes('profile') ? { name: user.name } : {}),
      ...(token.scopes.includes('email') ? { email: user.email } : {}),
    };
  };
  router.get('/oauth/userinfo', handler);
  router.post('/oauth/userinfo', handler);
}
