import { SecretUnavailableError } from '../../../core/sdk.ts';
import type { AccessTokenClaims } from '../domain/access-token.ts';
import { newId } from '../domain/secrets.ts';
import { invalidScope, invalidTarget, oauthError } from '../oauth/errors.ts';
import type { AuthServices } from '../services.ts';
import { own } from '../state/collections.ts';
import type { Client, Resource } from '../state/model.ts';
import { postForm, UpstreamError } from '../upstream/http.ts';
import type { MetadataCache } from '../upstream/metadata.ts';
import { activeGrant, openCredentials, revokeBrokerGrants, saveCredentials } from './grants.ts';
import type { BrokerGrant, BrokerProvider, UpstreamCredentials } from './model.ts';
import { brokerEndpoints, clientAuth, credentialsFrom } from './upstream-config.ts';

const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token' as const;
/** A stored upstream token this close to expiry is refreshed first. */
const REFRESH_MARGIN_MS = 30_000;

/** `consent_required` pointing at the connect page: the user has to (re)connect the provider. */
function connectRequired(
  s: AuthServices,
  cause: 'consent_missing' | 'scope_insufficient',
  p: BrokerProvider,
  r: Resource,
) {
  const url = new URL(`${s.issuer()}/connect/${encodeURIComponent(p.slug)}`);
  url.searchParams.set('resource', r.slug);
  return oauthError(
    400,
    'consent_required',
    cause === 'consent_missing'
      ? `the user has not connected ${p.slug}`
      : `the user's connection to ${p.slug} does not cover the requested scopes`,
    { body: { consent_url: url.toString(), cause } },
  );
}

/** One upstream refresh per grant at a time: concurrent exchanges share it (a provider may rotate refresh tokens). */
const inFlight = new Map<string, Promise<UpstreamCredentials>>();

async function refreshed(
  s: AuthServices,
  metadata: MetadataCache,
  p: BrokerProvider,
  g: BrokerGrant,
  creds: UpstreamCredentials,
): Promise<UpstreamCredentials> {
  const running = inFlight.get(g.id);
  if (running) return running;
  const run = (async () => {
    const e = await brokerEndpoints(s, p, metadata);
    const auth = clientAuth(e);
    const res = await postForm(
      e.token_endpoint,
      { grant_type: 'refresh_token', refresh_token: creds.refresh_token ?? '', ...auth.form },
      auth.headers,
    );
    // RFC 6749 §5.2: the refresh token is dead; the grant is over, the user connects again.
    if (res.status === 400 && res.json?.error === 'invalid_grant') {
      await revokeBrokerGrants(s, (x) => x.id === g.id);
      throw new UpstreamError('invalid_grant');
    }
    const { credentials, scope } = credentialsFrom(res.json, res.status);
    // RFC 6749 §6: a new refresh token replaces the old one; none means the old one stays valid.
    const next = {
      ...credentials,
      ...(credentials.refresh_token ? {} : creds.refresh_token ? { refresh_token: creds.refresh_token } : {}),
    };
    const saved = await saveCredentials(s, g.user_id, p.id, scope ?? g.scopes_granted, next);
    void s.audit.record('upstream.token.refreshed', {
      actor_id: g.user_id,
      detail: `${p.slug} ${g.id} v${saved.version}`,
    });
    return next;
  })();
  inFlight.set(g.id, run);
  try {
    return await run;
  } finally {
    inFlight.delete(g.id);
  }
}

/**
 * Token exchange for a broker resource: the answer is the user's upstream access token at the resource's
 * provider (refreshed first when it is about to expire), recorded as an issuance with `backend_kind:
 * broker` that this server cannot revoke. No connection, or one without the requested scopes, is
 * `consent_required` with the connect page as `consent_url`.
 */
export async function vendBrokeredToken(
  s: AuthServices,
  input: {
    client: Client;
    subject: AccessTokenClaims;
    target: Resource;
    requested: string[] | undefined;
    chain: string[];
  },
) {
  const { client, subject, target, requested } = input;
  const user = own(s.data.data.users, subject.sub);
  if (!user) throw invalidTarget('only a user’s token can be exchanged for a brokered token');
  const provider = target.broker_provider_id
    ? own(s.broker.data.providers, target.broker_provider_id)
    : undefined;
  if (!provider) throw invalidTarget('the resource’s broker provider no longer exists');
  const names = target.scopes.map((x) => x.name);
  if (requested && !requested.every((x) => names.includes(x)))
    throw invalidScope('the resource has no such scope');
  const grant = activeGrant(s, user.id, provider.id);
  if (!grant) throw connectRequired(s, 'consent_missing', provider, target);
  const upstreamOf = (name: string) => target.scopes.find((x) => x.name === name)?.upstream ?? name;
  const covered = names.filter((n) => grant.scopes_granted.includes(upstreamOf(n)));
  if (requested && !requested.every((x) => covered.includes(x)))
    throw connectRequired(s, 'scope_insufficient', provider, target);
  const scopes = requested ?? covered;
  let creds: UpstreamCredentials | undefined;
  try {
    creds = openCredentials(s, grant);
  } catch (err) {
    if (!(err instanceof SecretUnavailableError)) throw err;
    s.log.error({ grant: grant.id }, 'broker grant credentials cannot be decrypted (secrets key changed?)');
    throw connectRequired(s, 'consent_missing', provider, target);
  }
  if (!creds) throw connectRequired(s, 'consent_missing', provider, target);
  if (creds.expires_at !== undefined && creds.expires_at - REFRESH_MARGIN_MS <= Date.now()) {
    if (!creds.refresh_token) throw connectRequired(s, 'consent_missing', provider, target);
    try {
      creds = await refreshed(s, s.upstreamMetadata, provider, grant, creds);
    } catch (err) {
      if (!(err instanceof UpstreamError)) throw err;
      if (err.message === 'invalid_grant') throw connectRequired(s, 'consent_missing', provider, target);
      s.log.warn({ provider: provider.slug, reason: err.message }, 'upstream refresh failed');
      throw oauthError(503, 'temporarily_unavailable', `${provider.slug} cannot be reached right now`);
    }
  }
  const now = Date.now();
  const expiresIn = creds.expires_at ? Math.max(1, Math.floor((creds.expires_at - now) / 1000)) : 3600;
  const jti = newId();
  await s.issuances.record({
    id: jti,
    jti,
    subject_user_id: user.id,
    client_id: client.id,
    resource_id: target.id,
    scopes,
    backend_kind: 'broker',
    revocable: false,
    issued_at: new Date(now).toISOString(),
    t: now,
    expires_at: new Date(now + expiresIn * 1000).toISOString(),
    agent_chain: input.chain,
    consent_client_id: '',
    parent_jti: subject.jti,
    ...(client.agent ? { agent_id: client.id } : {}),
  });
  void s.audit.record('token.exchanged', {
    client_id: client.id,
    actor_id: user.id,
    detail: `brokered ${provider.slug} -> ${target.slug}`,
  });
  return {
    access_token: creds.access_token,
    issued_token_type: ACCESS_TOKEN_TYPE,
    // The upstream's own token type (usually Bearer); the holder presents it to the upstream API.
    token_type: creds.token_type,
    expires_in: expiresIn,
    scope: scopes.join(' '),
  };
}
