import type {
  Client,
  ConsentGrant,
  FrontingLink,
  Idp,
  RefreshRecord,
  Resource,
  SubjectMapping,
  User,
  XaaPolicy,
} from './model.ts';

/**
 * Shape checks for records read back from the data files. A record that fails one cannot be served (every
 * reader assumes these fields), so loading sets it aside instead of letting it break discovery or the
 * admin lists.
 */
const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === 'string';
const isStrs = (v: unknown): v is string[] => Array.isArray(v) && v.every(isStr);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const oneOf = (v: unknown, values: readonly string[]) => isStr(v) && values.includes(v);

export function isClient(key: string, v: unknown): v is Client {
  return (
    isObj(v) &&
    v.id === key &&
    isStr(v.name) &&
    isStrs(v.redirect_uris) &&
    isStrs(v.grant_types) &&
    isStrs(v.response_types) &&
    oneOf(v.token_endpoint_auth_method, ['none', 'client_secret_basic', 'client_secret_post']) &&
    isStr(v.scope) &&
    isStrs(v.resources) &&
    oneOf(v.status, ['active', 'suspended', 'revoked'])
  );
}

export function isUser(key: string, v: unknown): v is User {
  return (
    isObj(v) &&
    v.id === key &&
    isStr(v.email) &&
    isStr(v.name) &&
    oneOf(v.role, ['admin', 'user']) &&
    oneOf(v.status, ['active', 'disabled']) &&
    isStr(v.password_hash)
  );
}

export function isResource(key: string, v: unknown): v is Resource {
  if (!isObj(v) || v.id !== key || !isStr(v.slug) || !isStr(v.uri) || !isStr(v.display_name)) return false;
  if (!Array.isArray(v.scopes) || !v.scopes.every((x) => isObj(x) && isStr(x.name))) return false;
  const p = v.policy;
  return (
    isObj(p) &&
    isObj(p.exchange) &&
    isStrs(p.exchange.allowed_client_ids) &&
    isObj(p.runtime) &&
    isStrs(p.runtime.client_ids) &&
    (p.connect === undefined || (isObj(p.connect) && isStrs(p.connect.allowed_return_urls)))
  );
}

export function isConsentGrant(key: string, v: unknown): v is ConsentGrant {
  return (
    isObj(v) &&
    v.id === key &&
    isStr(v.user_id) &&
    isStr(v.client_id) &&
    isStr(v.resource_id) &&
    isStrs(v.scopes)
  );
}

export function isRefreshRecord(_key: string, v: unknown): v is RefreshRecord {
  return (
    isObj(v) &&
    isStr(v.family_id) &&
    isStr(v.client_id) &&
    isStr(v.user_id) &&
    isStr(v.resource_id) &&
    isStrs(v.scopes) &&
    isStr(v.consent_grant_id) &&
    isNum(v.expires_at) &&
    (v.dpop_jkt === undefined || isStr(v.dpop_jkt))
  );
}

export function isFrontingLink(key: string, v: unknown): v is FrontingLink {
  if (!isObj(v) || !isStr(v.source_id) || !isStr(v.target_id) || key !== `${v.source_id} ${v.target_id}`)
    return false;
  const map = v.scope_map;
  return isObj(map) && Object.values(map).every(isStrs) && isStr(v.created_at) && isStr(v.created_by);
}

export const isIdp = (key: string, v: unknown): v is Idp =>
  isObj(v) &&
  v.id === key &&
  isStr(v.name) &&
  isStr(v.issuer) &&
  isStr(v.jwks_uri) &&
  isStr(v.audience) &&
  typeof v.enabled === 'boolean';

export const isXaaPolicy = (key: string, v: unknown): v is XaaPolicy =>
  isObj(v) &&
  v.id === key &&
  isStr(v.idp_id) &&
  isStrs(v.client_ids) &&
  isStrs(v.scopes) &&
  isStrs(v.resources) &&
  typeof v.enabled === 'boolean';

export const isSubjectMapping = (key: string, v: unknown): v is SubjectMapping =>
  isObj(v) && v.id === key && isStr(v.idp_id) && isStr(v.idp_subject) && isStr(v.local_user_id);
