import type { PluginContext } from '../../core/sdk.ts';
import { openBrokerStore } from './broker/store.ts';
import type { AuthConfig } from './config.ts';
import { createTokenSigner } from './domain/access-token.ts';
import { createIdpKeyCache } from './domain/idp-keys.ts';
import { openKeyRing } from './domain/keys.ts';
import { createLockout } from './domain/lockout.ts';
import { createPasswordHasher } from './domain/passwords.ts';
import { createRateLimiter } from './domain/rate-limit.ts';
import { createReplayCache } from './domain/replay-cache.ts';
import { VerifiedSecrets } from './domain/verified-secrets.ts';
import { createCimdResolver } from './oauth/cimd.ts';
import { createDpopService } from './oauth/dpop.ts';
import { ASSERTION_SKEW_SEC } from './oauth/grant-jwt-bearer.ts';
import type { AuthServices } from './services.ts';
import { createAudit } from './state/audit.ts';
import { createCodeStore } from './state/codes.ts';
import { issuedAtOf } from './state/issuance-codec.ts';
import { createIssuanceRegistry } from './state/issuances.ts';
import { prepareAuthData, prepareRefreshData, prepareSessionData } from './state/load-data.ts';
import type { AuditEvent, AuthData, RefreshData, Revocation, SessionData } from './state/model.ts';
import { createPendingAuthorizations } from './state/pending.ts';
import { createSessionStore } from './state/sessions.ts';
import { createMetadataCache } from './upstream/metadata.ts';
import { openUpstreamStore } from './upstream/store.ts';

const DAY = 86_400_000;
export const VERSION = '0.1.0';

/** Opens every store and builds the shared services. `issuer` is filled in once the listener is bound. */
export async function createServices(
  ctx: PluginContext<AuthConfig>,
): Promise<AuthServices & { setIssuer(url: string): void }> {
  const config = ctx.config;
  const maxTtl = Math.max(config.access_token_ttl, config.client_credentials_ttl);
  const keys = await openKeyRing(await ctx.store.dir(), maxTtl);
  const data = await ctx.store.open<AuthData>('data', {
    clients: {},
    users: {},
    resources: {},
    consent_grants: {},
    fronting: {},
    idps: {},
    xaa_policies: {},
    xaa_subject_mappings: {},
    settings: { dcr: null },
  });
  await prepareAuthData(data, ctx.log);
  const refresh = await ctx.store.open<RefreshData>('refresh', { tokens: {} });
  prepareRefreshData(refresh, ctx.log);
  const sessions = await ctx.store.open<SessionData>('sessions', { sessions: {} });
  prepareSessionData(sessions, ctx.log);
  // Hot logs are bounded by count and by age (`retention_days`) in the store, which ages out from the head
  // on append (O(1)), so retention costs issuance nothing.
  // Written at most every 5 s: a crash loses at most the last seconds of issuance records (the tokens stay
  // valid and revocations are written durably on their own), and a busy minute rewrites the file 12 times.
  const issuanceLog = await ctx.store.openLog<string>('issuances', {
    max: config.issuances.max,
    maxAgeMs: config.issuances.retention_days * DAY,
    timeOf: issuedAtOf,
    coalesceMs: 5000,
  });
  // A revocation matters only until the token would have expired anyway.
  const revocationLog = await ctx.store.openLog<Revocation>('revocations', {
    max: 100_000,
    maxAgeMs: 0,
    timeOf: (r) => r.exp,
  });
  const auditLog = await ctx.store.openLog<AuditEvent>('audit', {
    max: config.audit.max,
    maxAgeMs: config.audit.retention_days * DAY,
    timeOf: (e) => e.t,
  });
  let issuer = config.issuer.replace(/\/+$/, '');
  const services: AuthServices & { setIssuer(url: string): void } = {
    config,
    log: ctx.log,
    notices: ctx.notices,
    issuer: () => issuer,
    secure: () => config.cookie_secure || issuer.startsWith('https:'),
    setIssuer: (url) => {
      issuer ||= url.replace(/\/+$/, '');
    },
    data,
    refresh,
    sessions: createSessionStore(sessions),
    upstream: await openUpstreamStore(ctx.store),
    broker: await openBrokerStore(ctx.store),
    secrets: ctx.secrets,
    upstreamMetadata: createMetadataCache(),
    issuances: createIssuanceRegistry(issuanceLog, revocationLog, config.issuances.retention_days * DAY),
    audit: createAudit(auditLog, config.audit.retention_days * DAY),
    keys,
    signer: createTokenSigner(keys, () => issuer),
    passwords: await createPasswordHasher(),
    lockout: createLockout({
      maxFailures: config.rate_limit.auth_fail_max,
      windowMs: config.rate_limit.auth_fail_window * 1000,
      lockoutMs: config.rate_limit.auth_lockout * 1000,
      maxTracked: 10_000,
    }),
    clientAuthFailures: createRateLimiter(
      {
        ratePerSec: config.rate_limit.client_fail_per_minute / 60,
        burst: config.rate_limit.client_fail_burst,
        maxKeys: 10_000,
      },
      () => Date.now(),
    ),
    verifiedSecrets: new VerifiedSecrets(keys.hmacSecret),
    codes: createCodeStore(),
    dpop: createDpopService(config.dpop, keys.hmacSecret),
    idpKeys: createIdpKeyCache(config.xaa.jwks_cache_ttl),
    // An accepted assertion lives at most max_assertion_age (plus skew): so does its jti here.
    assertionReplay: createReplayCache(
      100_000,
      undefined,
      (config.xaa.max_assertion_age + ASSERTION_SKEW_SEC) * 1000,
    ),
    pending: createPendingAuthorizations(),
    cimd: createCimdResolver(config.cimd),
    dcr: () => data.data.settings.dcr ?? config.dcr,
    startedAt: Date.now(),
    version: VERSION,
    onRevoked: (event) => ctx.bus.emit('auth.token.revoked', event),
    issuedCounter: ctx.metrics.counter('tokens_issued', 'Access tokens issued, by grant type'),
  };
  pruneRefreshTokens(services);
  return services;
}

/** Drops refresh records that expired (rotated ones are kept until then for reuse detection). */
export function pruneRefreshTokens(s: AuthServices): void {
  const now = Date.now();
  const expired = Object.entries(s.refresh.data.tokens).filter(([, r]) => r.expires_at < now);
  if (expired.length === 0) return;
  s.refresh.update((d) => {
    for (const [k] of expired) delete d.tokens[k];
  });
}
