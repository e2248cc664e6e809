import { type Actor, actFromChain, type MintInput } from '../domain/access-token.ts';
import { newId, randomToken, sha256 } from '../domain/secrets.ts';
import type { AuthServices } from '../services.ts';
import { own } from '../state/collections.ts';
import type { Client, Issuance, Resource } from '../state/model.ts';
import { type TokenFilter, tokenFilter } from '../state/token-filter.ts';
import { invalidGrant, invalidTarget } from './errors.ts';

export interface IssueInput {
  client: Client;
  /** The user for delegated grants; machine tokens use the client id as subject. */
  userId: string | null;
  /** The subject when it is neither (a machine token exchanged by another client keeps its subject). */
  subject?: string;
  resource: Resource;
  scopes: string[];
  ttlSec: number;
  familyId?: string;
  consentGrantId?: string;
  /** DPoP key thumbprint: the token is bound to it (`cnf.jkt`) and its issuance records it. */
  jkt?: string | undefined;
  /** An `act` claim of its own (jwt-bearer: the identity provider that vouched for the subject). */
  act?: Actor;
  /** RFC 8693 exchanges: the subject token, the actors root first, the agent, whose consent authorized it. */
  exchange?: {
    parentJti: string;
    chain: string[];
    agentId?: string | undefined;
    consentClientId: string;
  };
  /**
   * Re-checked once the token is signed and recorded: a revocation that ran while it was being signed
   * could not see it, so a token whose grant fell meanwhile is revoked at once and refused.
   */
  stillValid?: () => boolean;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer' | 'DPoP';
  expires_in: number;
  scope: string;
  refresh_token?: string;
  /** OpenID Connect Core §3.1.3.3: when `openid` was granted. */
  id_token?: string;
}

/** RFC 9449 §5: a bound token is of type DPoP. */
export const tokenType = (jkt: string | undefined): 'Bearer' | 'DPoP' => (jkt ? 'DPoP' : 'Bearer');

/** Mints an access token and records its issuance (bounded log, coalesced write). */
export async function issueAccessToken(s: AuthServices, input: IssueInput) {
  // A broker resource's tokens are the user's upstream tokens, vended by token exchange only.
  if (input.resource.backend_kind === 'broker')
    throw invalidTarget('tokens for this resource are obtained by token exchange');
  const mark = s.issuances.cascadeMark();
  // Optional members assigned rather than spread: this runs once per token.
  const mint: MintInput = {
    sub: input.userId ?? input.subject ?? input.client.id,
    aud: input.resource.uri,
    clientId: input.client.id,
    scopes: input.scopes,
    ttlSec: input.ttlSec,
  };
  if (input.jkt) mint.jkt = input.jkt;
  const act = input.exchange ? actFromChain(input.exchange.chain) : input.act;
  if (act) mint.act = act;
  const { token, claims } = await s.signer.mint(mint);
  const issuance: Issuance = {
    id: claims.jti,
    jti: claims.jti,
    subject_user_id: input.userId ?? '',
    client_id: input.client.id,
    resource_id: input.resource.id,
    scopes: input.scopes,
    backend_kind: 'mint',
    revocable: true,
    issued_at: new Date(claims.iat * 1000).toISOString(),
    t: claims.iat * 1000,
    expires_at: new Date(claims.exp * 1000).toISOString(),
    agent_chain: input.exchange?.chain ?? [],
    consent_client_id: input.exchange
      ? input.exchange.consentClientId
      : input.consentGrantId
        ? input.client.id
        : '',
    parent_jti: input.exchange?.parentJti ?? '',
  };
  if (input.exchange?.agentId) issuance.agent_id = input.exchange.agentId;
  if (input.jkt) issuance.dpop_jkt = input.jkt;
  if (input.familyId) issuance.family_id = input.familyId;
  if (input.consentGrantId) issuance.consent_grant_id = input.consentGrantId;
  await s.issuances.record(issuance);
  // A revocation that ran while the token was being signed could not see it: apply it now.
  if (s.issuances.revokedSince(mark, issuance) || (input.stillValid && !input.stillValid())) {
    await revokeJti(s, claims.jti);
    throw invalidGrant('the grant was revoked while the token was issued');
  }
  s.issuedCounter.inc({
    grant: input.exchange
      ? 'token_exchange'
      : input.act
        ? 'jwt_bearer'
        : input.userId === null
          ? 'client_credentials'
          : 'delegated',
  });
  return { token, claims };
}

/** A new refresh token in a family (a new family when none is given). */
export function issueRefreshToken(
  s: AuthServices,
  input: {
    client: Client;
    userId: string;
    resource: Resource;
    scopes: string[];
    familyId?: string;
    consentGrantId: string;
    /** RFC 9449 §5: the DPoP key a public client's refresh token is bound to. */
    jkt?: string | undefined;
  },
): { token: string; familyId: string } {
  const token = randomToken();
  const familyId = input.familyId ?? newId();
  const now = Date.now();
  s.refresh.update((d) => {
    d.tokens[sha256(token)] = {
      family_id: familyId,
      client_id: input.client.id,
      user_id: input.userId,
      resource_id: input.resource.id,
      scopes: input.scopes,
      consent_grant_id: input.consentGrantId,
      created_at: now,
      expires_at: now + s.config.refresh_token_ttl * 1000,
      ...(input.jkt ? { dpop_jkt: input.jkt } : {}),
    };
  });
  return { token, familyId };
}

/**
 * Revokes one access token by jti (idempotent) and, at any depth, every token exchanged from it (RFC 8693:
 * a delegated token never outlives the one it was made from). Returns how many were newly revoked.
 */
export async function revokeJti(s: AuthServices, jti: string): Promise<number> {
  if (!jti) return 0;
  const i = s.issuances.raw(jti);
  const exp = i ? Date.parse(i.expires_at) : Date.now() + 86_400_000;
  const fresh = await s.issuances.revoke(jti, exp);
  const aud = i ? own(s.data.data.resources, i.resource_id)?.uri : undefined;
  if (fresh && aud) s.onRevoked({ jti, aud, exp: Math.floor(exp / 1000) });
  let n = fresh ? 1 : 0;
  // Exchanges still signing when this runs check their parent afterwards (`stillValid`).
  for (const child of s.issuances.childrenOf(jti)) n += await revokeJti(s, child);
  return n;
}

/**
 * Tells holders of open connections (site WebSocket, MQTT) to drop the live tokens of a client that was
 * suspended or a user that was disabled: the tokens fail every check from now on (`isLive`), but nothing
 * is revoked, so they work again after reactivation.
 */
export function announceSuspended(s: AuthServices, filter: TokenFilter): void {
  const match = tokenFilter(filter);
  if (!match) return;
  const now = Date.now();
  for (const i of s.issuances.where(
    (x) =>
      match({ ...x, user_id: x.subject_user_id }) &&
      Date.parse(x.expires_at) > now &&
      !s.issuances.isRevoked(x.jti),
  )) {
    const aud = own(s.data.data.resources, i.resource_id)?.uri;
    if (aud) s.onRevoked({ jti: i.jti, aud, exp: Math.floor(Date.parse(i.expires_at) / 1000) });
  }
}

/** Revokes every refresh token of a family and every access token minted from it. Returns the count. */
export async function revokeFamily(s: AuthServices, familyId: string): Promise<number> {
  // An empty id would match every token that has no family (all machine tokens).
  if (!familyId) return 0;
  s.issuances.noteCascade((i) => i.family_id === familyId);
  const now = Date.now();
  let n = 0;
  s.refresh.update((d) => {
    for (const r of Object.values(d.tokens)) {
      if (r.family_id === familyId && !r.revoked_at) {
        r.revoked_at = now;
        n++;
      }
    }
  });
  for (const i of s.issuances.where((x) => x.family_id === familyId)) n += await revokeJti(s, i.jti);
  return n;
}

/** Revokes every token (refresh and access) matching a filter over refresh records and issuances. */
export async function revokeWhere(s: AuthServices, filter: TokenFilter): Promise<number> {
  const match = tokenFilter(filter);
  if (!match) return 0;
  s.issuances.noteCascade((i) => match({ ...i, user_id: i.subject_user_id }));
  const now = Date.now();
  let n = 0;
  s.refresh.update((d) => {
    for (const r of Object.values(d.tokens)) {
      if (!r.revoked_at && match(r)) {
        r.revoked_at = now;
        n++;
      }
    }
  });
  const live = s.issuances.where(
    (i) => match({ ...i, user_id: i.subject_user_id }) && Date.parse(i.expires_at) > now,
  );
  for (const i of live) n += await revokeJti(s, i.jti);
  return n;
}
