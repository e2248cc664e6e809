import { STATUS_CODES } from 'node:http';
import { HttpError } from '../../../core/sdk.ts';

/**
 * An OAuth error: RFC 6749 §5.2 members plus the RFC 9457 members, sent as `application/json`
 * (real clients refuse `application/problem+json` on these endpoints, docs/auth.md#decisions-where-the-origin-differs).
 */
export function oauthError(
  status: number,
  error: string,
  description: string,
  extra: { headers?: Record<string, string>; body?: Record<string, unknown> } = {},
): HttpError {
  return new HttpError(status, error, description, {
    headers: { 'Cache-Control': 'no-store', ...extra.headers },
    body: {
      error,
      error_description: description,
      type: `urn:hearth:oauth:error:${error}`,
      title: STATUS_CODES[status] ?? 'Error',
      detail: description,
      status,
      ...extra.body,
    },
  });
}

export const invalidRequest = (d: string) => oauthError(400, 'invalid_request', d);
export const invalidGrant = (d: string) => oauthError(400, 'invalid_grant', d);
export const invalidScope = (d: string) => oauthError(400, 'invalid_scope', d);
export const invalidTarget = (d: string) => oauthError(400, 'invalid_target', d); // RFC 8707 §2
export const unauthorizedClient = (d: string) => oauthError(400, 'unauthorized_client', d);
// RFC 6749 §5.2: 401 with WWW-Authenticate when the client tried HTTP authentication
export const invalidClient = (d = 'client authentication failed') =>
  oauthError(401, 'invalid_client', d, { headers: { 'WWW-Authenticate': 'Basic realm="hearth"' } });

const OAUTH_CODES = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'invalid_target',
  'access_denied',
  'invalid_redirect_uri',
  'invalid_client_metadata',
  'invalid_token',
  'unsupported_token_type',
  'slow_down',
  'invalid_dpop_proof',
  'use_dpop_nonce',
  'insufficient_scope',
  'consent_required',
]);

/** Error body shape for the OAuth routers (errors thrown without a complete body). */
export function oauthErrorBody(err: {
  status: number;
  code: string;
  message: string;
}): Record<string, unknown> {
  const error = err.status >= 500 ? 'server_error' : OAUTH_CODES.has(err.code) ? err.code : 'invalid_request';
  return {
    error,
    error_description: err.message,
    type: `urn:hearth:oauth:error:${error}`,
    title: STATUS_CODES[err.status] ?? 'Error',
    detail: err.message,
    status: err.status,
  };
}

/** Admin error shape: RFC 9457 members plus a stable `error` code. */
export function adminErrorBody(err: {
  status: number;
  code: string;
  message: string;
}): Record<string, unknown> {
  return {
    error: err.code,
    type: `urn:hearth:auth:error:${err.code}`,
    title: STATUS_CODES[err.status] ?? 'Error',
    detail: err.message,
    status: err.status,
  };
}
