import type { Logger } from 'pino';
import type { Counter, DocStore, NoticesApi, SecretsApi } from '../../core/sdk.ts';
import type { BrokerData } from './broker/model.ts';
import type { AuthConfig, DcrMode } from './config.ts';
import type { TokenSigner } from './domain/access-token.ts';
import type { IdpKeyCache } from './domain/idp-keys.ts';
import type { KeyRing } from './domain/keys.ts';
import type { Lockout } from './domain/lockout.ts';
import type { PasswordHasher } from './domain/passwords.ts';
import type { RateLimiter } from './domain/rate-limit.ts';
import type { ReplayCache } from './domain/replay-cache.ts';
import type { VerifiedSecrets } from './domain/verified-secrets.ts';
import type { CimdResolver } from './oauth/cimd.ts';
import type { DpopService } from './oauth/dpop.ts';
import type { Audit } from './state/audit.ts';
import type { CodeStore } from './state/codes.ts';
import { own } from './state/collections.ts';
import type { IssuanceRegistry } from './state/issuances.ts';
import type { AuthData, Client, RefreshData, Resource } from './state/model.ts';
import type { PendingAuthorizations } from './state/pending.ts';
import type { SessionStore } from './state/sessions.ts';
import type { MetadataCache } from './upstream/metadata.ts';
import type { UpstreamData } from './upstream/model.ts';

/** Everything the auth routes share, created once per plugin start (never module state). */
export interface AuthServices {
  config: AuthConfig;
  log: Logger;
  notices: NoticesApi;
  issuer(): string;
  /** True when the public server is reached over https (cookie Secure flag). */
  secure(): boolean;
  data: DocStore<AuthData>;
  refresh: DocStore<RefreshData>;
  sessions: SessionStore;
  /** Upstream OpenID account links (`auth.upstream.json`). */
  upstream: DocStore<UpstreamData>;
  /** Broker providers and grants (`auth.broker.json`); credentials inside are sealed with `secrets`. */
  broker: DocStore<BrokerData>;
  /** Discovery documents of upstream providers (OpenID login, broker providers with an `issuer`). */
  upstreamMetadata: MetadataCache;
  /** The core's secrets facility, scoped to this plugin. */
  secrets: SecretsApi;
  issuances: IssuanceRegistry;
  audit: Audit;
  keys: KeyRing;
  signer: TokenSigner;
  passwords: PasswordHasher;
  lockout: Lockout;
  /** Failed client authentications per IP (token, introspection, revocation endpoints). */
  clientAuthFailures: RateLimiter;
  /** Client secrets verified in this process (checked against the client's current stored hash each time). */
  verifiedSecrets: VerifiedSecrets;
  codes: CodeStore;
  dpop: DpopService;
  /** Trusted IdPs' signing keys (jwt-bearer with ID-JAG). */
  idpKeys: IdpKeyCache;
  /** ID-JAG `jti`s until their assertion expires: each assertion is used once. */
  assertionReplay: ReplayCache;
  pending: PendingAuthorizations;
  /** Clients known by the URL of their metadata document. */
  cimd: CimdResolver;
  dcr(): { mode: DcrMode; approved_redirects: string[] };
  startedAt: number;
  version: string;
  /** Tells other plugins that a token was revoked, so they can drop connections opened with it. */
  onRevoked(event: { jti: string; aud: string; exp: number }): void;
  /** `hearth_auth_tokens_issued_total{grant}`. */
  issuedCounter: Counter;
}

/** A resource by id, slug or URI (RFC 8707 `resource` values are URIs; admins also use slugs). */
export function findResource(s: AuthServices, ref: string): Resource | undefined {
  const all = s.data.data.resources;
  return own(all, ref) ?? Object.values(all).find((r) => r.uri === ref || r.slug === ref);
}

export const findClient = (s: AuthServices, id: string): Client | undefined => own(s.data.data.clients, id);

export const nowIso = (): string => new Date().toISOString();
