import { type HearthRouter, notFound } from '../../../core/sdk.ts';
import { DPOP_ALGS } from '../domain/dpop.ts';
import type { AuthServices } from '../services.ts';
import type { Resource } from '../state/model.ts';
import { ID_JAG_PROFILE } from './grant-jwt-bearer.ts';
import { grantTypes } from './token-endpoint.ts';

const CLIENT_AUTH = ['client_secret_basic', 'client_secret_post', 'none'];
const CALLER_AUTH = ['client_secret_basic', 'client_secret_post'];

/** RFC 8414 metadata: only what this server implements. */
export function asMetadata(s: AuthServices): Record<string, unknown> {
  const iss = s.issuer();
  const scopes = new Set<string>();
  for (const r of Object.values(s.data.data.resources)) for (const sc of r.scopes) scopes.add(sc.name);
  return {
    issuer: iss,
    authorization_endpoint: `${iss}/oauth/authorize`,
    token_endpoint: `${iss}/oauth/token`,
    registration_endpoint: `${iss}/oauth/register`,
    revocation_endpoint: `${iss}/oauth/revoke`,
    introspection_endpoint: `${iss}/oauth/introspect`,
    jwks_uri: `${iss}/.well-known/jwks.json`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: grantTypes(s),
    token_endpoint_auth_methods_supported: CLIENT_AUTH,
    introspection_endpoint_auth_methods_supported: CALLER_AUTH,
    revocation_endpoint_auth_methods_supported: CLIENT_AUTH,
    code_challenge_methods_supported: ['S256'],
    scopes_supported: [...scopes].sort(),
    resource_indicators_supported: true,
    authorization_response_iss_parameter_supported: true, // RFC 9207 §3
    client_id_metadata_document_supported: s.config.cimd.enabled,
    ...(s.dpop.enabled ? { dpop_signing_alg_values_supported: DPOP_ALGS } : {}), // RFC 9449 §5.1
    vendor_agent_identity_supported: false,
    // The ID-JAG profile of the jwt-bearer grant; trusted issuers are never listed (draft: must not).
    ...(s.config.xaa.enabled
      ? { authorization_grant_profiles_supported: [ID_JAG_PROFILE], identity_assertion_supported: true }
      : {}),
    // OpenID Connect Discovery §3, for Hearth's own apps signing a person in.
    userinfo_endpoint: `${iss}/oauth/userinfo`,
    subject_types_supported: ['public'],
    // RS256 first: OpenID Connect Discovery §3 requires it, and it is the default of clients that register
    // no id_token_signed_response_alg (OpenID Connect Registration §2).
    id_token_signing_alg_values_supported: ['RS256', 'ES256'],
    claims_supported: ['sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'at_hash', 'name', 'email'],
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false, // the default would be true
  };
}

/** RFC 9728 protected-resource metadata; optional members are omitted when empty (spec). */
function prm(s: AuthServices, r: Pick<Resource, 'uri' | 'display_name' | 'scopes'>): Record<string, unknown> {
  const scopes = r.scopes.map((x) => x.name);
  return {
    resource: r.uri,
    ...(r.display_name ? { resource_name: r.display_name } : {}),
    authorization_servers: [s.issuer()],
    ...(scopes.length > 0 ? { scopes_supported: scopes } : {}),
    bearer_methods_supported: ['header'], // RFC 6750 §2.1 only: never query or body
  };
}

export function mountDiscovery(router: HearthRouter, s: AuthServices): void {
  const metadata: Parameters<HearthRouter['get']>[1] = (ctx) => {
    ctx.set('Cache-Control', 'max-age=300');
    ctx.set('Access-Control-Allow-Origin', '*'); // RFC 9700 §2.6: metadata may be read cross-origin
    ctx.body = asMetadata(s);
  };
  router.get('/.well-known/oauth-authorization-server', metadata);
  router.get('/.well-known/openid-configuration', metadata);
  router.get('/.well-known/jwks.json', (ctx) => {
    ctx.set('Cache-Control', 'max-age=300');
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.body = s.keys.jwks();
  });
  router.get('/.well-known/oauth-protected-resource', (ctx) => {
    // The bare path describes the server's own origin; each resource has its document under its slug.
    const scopes = Object.values(s.data.data.resources).flatMap((r) => r.scopes);
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.body = prm(s, {
      uri: s.issuer(),
      display_name: 'Hearth',
      scopes: [...new Map(scopes.map((x) => [x.name, x])).values()],
    });
  });
  router.get('/.well-known/oauth-protected-resource/:ref', (ctx) => {
    const ref = ctx.params.ref ?? '';
    const r = Object.values(s.data.data.resources).find((x) => x.slug === ref || x.id === ref);
    if (!r) throw notFound('unknown resource', 'resource_not_found');
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.body = prm(s, r);
  });
}

/** Health probes with the spec's healthResponse; `/livez` checks nothing on purpose. */
export function mountHealth(router: HearthRouter, s: AuthServices): void {
  const health: Parameters<HearthRouter['get']>[1] = (ctx) => {
    const ok = s.keys.all().length > 0;
    ctx.status = ok ? 200 : 503;
    ctx.body = { status: ok ? 'ok' : 'degraded', time: new Date().toISOString(), db: 'ok' };
  };
  router.get('/health', health);
  router.get('/ready', health);
  router.get('/livez', (ctx) => {
    ctx.body = { status: 'ok', time: new Date().toISOString() };
  });
}
