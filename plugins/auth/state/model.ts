import type { DcrMode } from '../config.ts';

export type ClientStatus = 'active' | 'suspended' | 'revoked';
export type AuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post';

export interface Client {
  id: string;
  name: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: AuthMethod;
  /** Ceiling for client_credentials; empty means zero scopes (spec rule 3). */
  scope: string;
  /** Extension: resources (slug or URI) client_credentials may target; empty means any. */
  resources: string[];
  status: ClientStatus;
  registration_source: 'admin' | 'dcr' | 'cimd';
  application_type: 'web' | 'native';
  agent: boolean;
  agent_description: string;
  cimd_url: string;
  /** Metadata-document clients: when the document is fetched again (its cache lifetime, bounded). */
  cimd_expires_at?: string;
  /**
   * OpenID Connect Registration §2: the algorithm of this client's ID tokens. Absent means RS256, the
   * default there (and the only algorithm many OpenID clients accept).
   */
  id_token_signed_response_alg?: 'RS256' | 'ES256';
  /** HMAC-SHA256 of the secret with the server pepper; absent for public clients. */
  secret_hash?: string;
  issued_at: string;
  updated_at: string;
}

export interface User {
  id: string;
  email: string;
  name: string;
  role: 'admin' | 'user';
  status: 'active' | 'disabled';
  provider: 'local' | 'oidc';
  password_hash: string;
  created_at: string;
  updated_at: string;
}

export interface ScopeDef {
  name: string;
  description?: string;
  /** Broker resources: the upstream scope this scope asks the provider for (default: the same name). */
  upstream?: string;
}

export interface Resource {
  id: string;
  slug: string;
  uri: string;
  /** `mint`: this server signs the tokens; `broker`: they are the user's upstream tokens, vended. */
  backend_kind: 'mint' | 'broker';
  /** Set for broker resources only. */
  broker_provider_id?: string;
  display_name: string;
  scopes: ScopeDef[];
  policy: {
    exchange: { allowed_client_ids: string[] };
    runtime: { client_ids: string[] };
    /** Return URLs the connect flow may send a browser back to (used by broker resources, part 2). */
    connect?: { allowed_return_urls: string[] };
  };
  /** Set for resources that mirror a lighting site; they live and die with the site. */
  site_id?: string;
  created_at: string;
  updated_at: string;
}

export interface ConsentGrant {
  id: string;
  user_id: string;
  client_id: string;
  resource_id: string;
  scopes: string[];
  created_at: string;
  updated_at: string;
  revoked_at?: string;
}

/**
 * A fronting link: a token for `source` may be exchanged (RFC 8693) for a token for `target`, with each
 * source scope granting the target scopes it maps to. Stored by resource ids (slugs may be renamed).
 */
export interface FrontingLink {
  source_id: string;
  target_id: string;
  scope_map: Record<string, string[]>;
  created_at: string;
  created_by: string;
}

/** A trusted identity provider whose ID-JAG assertions the jwt-bearer grant accepts. */
export interface Idp {
  id: string;
  name: string;
  /** Its `iss`, compared exactly. */
  issuer: string;
  /** Where its signing keys are; empty: from its discovery document. */
  jwks_uri: string;
  /** The `aud` its assertions must carry; empty: this server's issuer. */
  audience: string;
  enabled: boolean;
  created_at: string;
  updated_at: string;
}

/** Cross-app access policy: which clients may obtain which scopes at which resources from an IdP's assertions. */
export interface XaaPolicy {
  id: string;
  name: string;
  idp_id: string;
  /** Empty lists do not restrict. */
  client_ids: string[];
  scopes: string[];
  resources: string[];
  enabled: boolean;
  created_at: string;
  updated_at: string;
}

/** An IdP subject that is a local user. */
export interface SubjectMapping {
  id: string;
  idp_id: string;
  idp_subject: string;
  local_user_id: string;
  created_at: string;
}

/** The configuration document (`auth.data.json`): small, changed by admin writes and consent. */
export interface AuthData {
  clients: Record<string, Client>;
  users: Record<string, User>;
  resources: Record<string, Resource>;
  consent_grants: Record<string, ConsentGrant>;
  /** Fronting links by `<source id> <target id>`. */
  fronting: Record<string, FrontingLink>;
  idps: Record<string, Idp>;
  xaa_policies: Record<string, XaaPolicy>;
  xaa_subject_mappings: Record<string, SubjectMapping>;
  settings: { dcr: { mode: DcrMode; approved_redirects: string[] } | null };
  /** Records found malformed when the file was loaded, kept for inspection instead of being served. */
  quarantine?: QuarantinedRecord[];
}

export interface QuarantinedRecord {
  collection: string;
  key: string;
  record: unknown;
  at: string;
}

export interface RefreshRecord {
  family_id: string;
  client_id: string;
  user_id: string;
  resource_id: string;
  scopes: string[];
  consent_grant_id: string;
  created_at: number;
  expires_at: number;
  /** Set when rotated: presenting it again is reuse and revokes the family (RFC 9700 §4.14.2). */
  used_at?: number;
  revoked_at?: number;
  /** RFC 9449 §5: a public client's refresh token bound to its DPoP key; only a proof with it may use it. */
  dpop_jkt?: string;
}

/** Refresh tokens by SHA-256 of the token (`auth.refresh.json`). */
export interface RefreshData {
  tokens: Record<string, RefreshRecord>;
}

/** A browser session, stored by SHA-256 of its cookie value (`auth.sessions.json`). */
export interface SessionRecord {
  /** Public handle for the admin API (never the cookie value). */
  id: string;
  user_id: string;
  created_at: number;
  expires_at: number;
}

export interface SessionData {
  sessions: Record<string, SessionRecord>;
}

export interface Issuance {
  id: string;
  jti: string;
  subject_user_id: string;
  client_id: string;
  resource_id: string;
  scopes: string[];
  backend_kind: 'mint' | 'broker';
  revocable: boolean;
  issued_at: string;
  expires_at: string;
  agent_chain: string[];
  consent_client_id: string;
  parent_jti: string;
  /** RFC 9449 §6.1: the thumbprint of the DPoP key the token is bound to. */
  dpop_jkt?: string;
  /** The agent client that acted (token exchange). */
  agent_id?: string;
  /** Internal links for cascades (not part of IssuanceView). */
  family_id?: string;
  consent_grant_id?: string;
  /** issued_at as epoch ms: the log's age check runs on every append, so it must be cheap. */
  t: number;
}

export interface Revocation {
  jti: string;
  revoked_at: string;
  /** Epoch ms after which the token is expired anyway (retention of the revocation record). */
  exp: number;
}

export interface AuditEvent {
  id: string;
  action: string;
  actor_id: string;
  client_id: string;
  ip: string;
  detail: string;
  trace_id: string;
  created_at: string;
  /** created_at as epoch ms (cheap age check; not part of auditEventView). */
  t: number;
}
