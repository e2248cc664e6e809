import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  type AuthHub,
  adminClient,
  adminUser,
  authorizeInBrowser,
  Browser,
  codeRequest,
  startAuthHub,
} from './helpers.ts';

const TE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const AT = 'urn:ietf:params:oauth:token-type:access_token';

interface Site {
  siteid: string;
  sitekey: string;
}

let h: AuthHub;
let user: { id: string; email: string; password: string };
let site: Site;
let siteUri: string;

beforeAll(async () => {
  h = await startAuthHub();
  user = await adminUser(h, 'pat@home.test');
  site = (await h.admin('POST', '/admin/sites', { name: 'Den' })).body as Site;
  siteUri = `urn:hearth:site:${site.siteid}`;
});
afterAll(async () => {
  await h?.stop();
});

async function resource(slug: string, scopes: string[]): Promise<{ id: string; uri: string }> {
  const res = await h.admin('POST', '/admin/resources', {
    slug,
    uri: '',
    backend_kind: 'mint',
    display_name: slug,
    scopes: scopes.map((name) => ({ name })),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; uri: string };
}

/** A confidential client that signs users in and exchanges their tokens (an assistant or agent). */
async function exchanger(name: string, opts: { agent?: boolean } = {}) {
  const c = await adminClient(h, {
    client_name: name,
    redirect_uris: ['http://127.0.0.1/callback'],
    grant_types: ['authorization_code', TE],
    response_types: ['code'],
    application_type: 'native',
    agent: opts.agent ?? false,
    agent_description: opts.agent ? 'does things for you' : '',
  });
  const config = await oidc.discovery(
    new URL(h.auth),
    c.client_id,
    undefined,
    oidc.ClientSecretBasic(c.client_secret!),
    { execute: [oidc.allowInsecureRequests], algorithm: 'oauth2' },
  );
  return { id: c.client_id, secret: c.client_secret!, config };
}

/** The user signs in to `app` for `resource` through the real pages; returns the access token. */
async function userToken(
  app: { config: oidc.Configuration },
  resourceUri: string,
  scope: string,
  b = new Browser(h.auth),
): Promise<string> {
  const flow = await codeRequest(app.config, { resource: resourceUri, scope });
  const callback = await authorizeInBrowser(b, flow.url, user);
  const tokens = await oidc.authorizationCodeGrant(app.config, callback, {
    pkceCodeVerifier: flow.verifier,
    expectedState: flow.state,
  });
  return tokens.access_token;
}

const exchange = (
  app: { config: oidc.Configuration },
  subject: string,
  params: Record<string, string>,
  dpop?: oidc.DPoPHandle,
) =>
  oidc.genericGrantRequest(
    app.config,
    TE,
    { subject_token: subject, subject_token_type: AT, ...params },
    dpop ? { DPoP: dpop } : undefined,
  );

const siteApi = (token: string) =>
  fetch(`${h.url}/api/site/${site.siteid}/light`, { headers: { authorization: `Bearer ${token}` } });

async function issuance(jti: string) {
  const res = await h.admin('GET', `/admin/issuances?jti=${jti}`);
  return (res.body as { issuances: Array<Record<string, unknown>> }).issuances[0]!;
}

describe('discovery and settings', () => {
  test('the token-exchange grant is advertised; system config shows it with max_chain_depth', async () => {
    const meta = (await (await fetch(`${h.auth}/.well-known/oauth-authorization-server`)).json()) as {
      grant_types_supported: string[];
    };
    expect(meta.grant_types_supported).toContain(TE);
    const cfg = (await h.admin('GET', '/admin/system/config')).body as Record<string, unknown>;
    expect(cfg.token_exchange).toEqual({ enabled: true, max_chain_depth: 4 });
  });
});

describe('exchange through a fronting link', () => {
  test('calendar → site: scopes mapped, act, parent_jti, agent_chain, agent_id, consent_client_id; beyond the map is invalid_scope', async () => {
    const calendar = await resource('calendar', ['cal:read', 'cal:write']);
    const link = await h.admin('POST', '/admin/fronting', {
      source: 'calendar',
      target: siteUri,
      scope_map: { 'cal:read': ['lights:read'] },
    });
    expect(link.status, JSON.stringify(link.body)).toBe(201);
    const assistant = await exchanger('assistant', { agent: true });
    const subject = await userToken(assistant, calendar.uri, 'cal:read');
    const out = await exchange(assistant, subject, { resource: siteUri });
    expect(out).toMatchObject({ issued_token_type: AT, token_type: 'bearer', scope: 'lights:read' });
    expect(out.expires_in).toBeGreaterThan(0);
    expect(out.expires_in).toBeLessThanOrEqual(decodeJwt(subject).exp! - Math.floor(Date.now() / 1000) + 1);
    const claims = decodeJwt(out.access_token);
    expect(claims).toMatchObject({
      sub: user.id,
      aud: siteUri,
      client_id: assistant.id,
      act: { sub: assistant.id },
    });
    expect((await siteApi(out.access_token)).status).toBe(200);
    expect(await issuance(claims.jti!)).toMatchObject({
      parent_jti: decodeJwt(subject).jti,
      agent_chain: [assistant.id],
      agent_id: assistant.id,
      consent_client_id: assistant.id,
    });
    await expect(
      exchange(assistant, subject, { resource: siteUri, scope: 'lights:write' }),
    ).rejects.toMatchObject({
      error: 'invalid_scope',
    });
  });
});

describe('resource and audience together', () => {
  test('both naming the target are honoured; naming different targets is invalid_target, never audience silently dropped', async () => {
    const diary = await resource('diary', ['diary:read']);
    const other = await resource('other-target', ['other:read']);
    const link = await h.admin('POST', '/admin/fronting', {
      source: 'diary',
      target: siteUri,
      scope_map: { 'diary:read': ['lights:read'] },
    });
    expect(link.status, JSON.stringify(link.body)).toBe(201);
    const assistant = await exchanger('diary assistant');
    const subject = await userToken(assistant, diary.uri, 'diary:read');
    // The audience by slug, the resource by URI: one target, so the exchange goes ahead.
    const same = await exchange(assistant, subject, { resource: siteUri, audience: `site-${site.siteid}` });
    expect(decodeJwt(same.access_token).aud).toBe(siteUri);
    await expect(
      exchange(assistant, subject, { resource: siteUri, audience: other.uri }),
    ).rejects.toMatchObject({
      error: 'invalid_target',
    });
    await expect(
      exchange(assistant, subject, { resource: siteUri, audience: 'urn:nowhere' }),
    ).rejects.toMatchObject({ error: 'invalid_target' });
  });
});

describe('rule 6 as documented: a machine subject token', () => {
  test('is narrowed at its own resource, refused elsewhere without a fronting link (invalid_target)', async () => {
    const m = await adminClient(h, {
      client_name: 'machine exchanger',
      grant_types: ['client_credentials', TE],
      scope: 'lights:read lights:write',
      resources: [siteUri],
    });
    const config = await oidc.discovery(
      new URL(h.auth),
      m.client_id,
      undefined,
      oidc.ClientSecretBasic(m.client_secret!),
      { execute: [oidc.allowInsecureRequests], algorithm: 'oauth2' },
    );
    const machineToken = (await oidc.clientCredentialsGrant(config, { resource: siteUri })).access_token;
    const narrowed = await exchange({ config }, machineToken, { resource: siteUri, scope: 'lights:read' });
    expect(narrowed.scope).toBe('lights:read');
    await expect(
      exchange({ config }, machineToken, { resource: 'urn:hearth:translation' }),
    ).rejects.toMatchObject({
      error: 'invalid_target',
    });
  });
});

describe('exchange without a fronting link needs the user’s consent for the target', () => {
  test('consent_required with consent_missing, then scope_insufficient, each with a consent_url; a consented scope works', async () => {
    const notes = await resource('notes', ['notes:read']);
    const assistant = await exchanger('notes assistant');
    const b = new Browser(h.auth);
    const subject = await userToken(assistant, notes.uri, 'notes:read', b);
    const missing = await exchange(assistant, subject, { resource: siteUri, scope: 'lights:read' }).catch(
      (e) => e,
    );
    expect(missing).toMatchObject({ error: 'consent_required' });
    const body = (missing as { cause: { consent_url: string; cause: string } }).cause;
    expect(body.cause).toBe('consent_missing');
    const url = new URL(body.consent_url);
    expect(url.pathname).toBe('/oauth/authorize');
    expect(url.searchParams.get('client_id')).toBe(assistant.id);
    expect(url.searchParams.get('resource')).toBe(siteUri);
    // The user consents to lights:read only.
    await userToken(assistant, siteUri, 'lights:read', b);
    const partial = await exchange(assistant, subject, {
      resource: siteUri,
      scope: 'lights:read lights:write',
    }).catch((e) => e);
    expect(partial).toMatchObject({ error: 'consent_required' });
    const p = (partial as { cause: { consent_url: string; cause: string } }).cause;
    expect(p.cause).toBe('scope_insufficient');
    expect(new URL(p.consent_url).searchParams.get('scope')).toBe('lights:write');
    const ok = await exchange(assistant, subject, { resource: siteUri, scope: 'lights:read' });
    expect(ok.scope).toBe('lights:read');
  });
});

describe('policies', () => {
  test('the target’s exchange allowed_client_ids and the source’s runtime client_ids decide who may exchange', async () => {
    const docs = await resource('docs', ['docs:read']);
    await h.admin('POST', '/admin/fronting', {
      source: 'docs',
      target: siteUri,
      scope_map: { 'docs:read': ['lights:read'] },
    });
    const owner = await exchanger('docs app');
    const agent = await exchanger('docs agent', { agent: true });
    const subject = await userToken(owner, docs.uri, 'docs:read');
    // Another client may not exchange the owner's token until the source resource lets it act as itself.
    await expect(exchange(agent, subject, { resource: siteUri })).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    expect(
      (await h.admin('POST', '/admin/resources/docs/policy/runtime/client-ids', { client_id: agent.id }))
        .status,
    ).toBe(201);
    const viaAgent = await exchange(agent, subject, { resource: siteUri });
    expect(decodeJwt(viaAgent.access_token).act).toEqual({ sub: agent.id });
    expect(await issuance(decodeJwt(viaAgent.access_token).jti!)).toMatchObject({
      consent_client_id: owner.id,
    });
    // The site only lets the owner exchange from now on.
    const siteSlug = (
      (await h.admin('GET', '/admin/resources')).body as Array<{ slug: string; uri: string }>
    ).find((r) => r.uri === siteUri)!.slug;
    await h.admin('POST', `/admin/resources/${siteSlug}/policy/exchange/allowed-clients`, {
      client_id: owner.id,
    });
    try {
      await expect(exchange(agent, subject, { resource: siteUri })).rejects.toMatchObject({
        error: 'unauthorized_client',
      });
      expect((await exchange(owner, subject, { resource: siteUri })).scope).toBe('lights:read');
    } finally {
      await h.admin('DELETE', `/admin/resources/${siteSlug}/policy/exchange/allowed-clients/${owner.id}`);
    }
    // Unknown targets and subject tokens that are not ours.
    await expect(exchange(owner, subject, { resource: 'urn:nowhere' })).rejects.toMatchObject({
      error: 'invalid_target',
    });
    await expect(exchange(owner, 'not-a-token', { resource: siteUri })).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });
});

describe('delegation chains and the revocation cascade', () => {
  test('act nests per hop; beyond max_chain_depth is refused; revoking the first token takes every descendant', async () => {
    const tasks = await resource('tasks', ['tasks:read']);
    await h.admin('POST', '/admin/fronting', {
      source: 'tasks',
      target: siteUri,
      scope_map: { 'tasks:read': ['lights:read'] },
    });
    const agent = await exchanger('chain agent', { agent: true });
    const root = await userToken(agent, tasks.uri, 'tasks:read');
    const tokens = [root];
    for (let hop = 1; hop <= 4; hop++) {
      const next = await exchange(agent, tokens.at(-1)!, { resource: siteUri });
      tokens.push(next.access_token);
    }
    const last = decodeJwt(tokens[4]!);
    expect(last.act).toEqual({
      sub: agent.id,
      act: { sub: agent.id, act: { sub: agent.id, act: { sub: agent.id } } },
    });
    expect((await issuance(last.jti!)).agent_chain).toHaveLength(4);
    await expect(exchange(agent, tokens[4]!, { resource: siteUri })).rejects.toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringContaining('max_chain_depth'),
    });
    for (const t of tokens.slice(1)) expect((await siteApi(t)).status).toBe(200);
    // Revoking the root (RFC 7009, by its own client) revokes every token exchanged from it, at any depth.
    const revoke = await fetch(`${h.auth}/oauth/revoke`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${agent.id}:${agent.secret}`).toString('base64')}` },
      body: new URLSearchParams({ token: root }),
    });
    expect(revoke.status).toBe(200);
    for (const t of tokens.slice(1)) expect((await siteApi(t)).status).toBe(404);
    for (const t of tokens) expect((await issuance(decodeJwt(t).jti!)).revoked_at).toBeTruthy();
  });

  test('revoking the consent grant of the first token also revokes what was exchanged from it', async () => {
    const lists = await resource('lists', ['lists:read']);
    await h.admin('POST', '/admin/fronting', {
      source: 'lists',
      target: siteUri,
      scope_map: { 'lists:read': ['lights:read'] },
    });
    const app = await exchanger('lists app');
    const subject = await userToken(app, lists.uri, 'lists:read');
    const child = (await exchange(app, subject, { resource: siteUri })).access_token;
    expect((await siteApi(child)).status).toBe(200);
    const grants = (await h.admin('GET', `/admin/users/${user.id}/grants`)).body as {
      consent_grants: Array<{ id: string; client_id: string }>;
    };
    const grant = grants.consent_grants.find((g) => g.client_id === app.id)!;
    expect((await h.admin('DELETE', `/admin/grants/consent/${grant.id}`)).status).toBe(204);
    expect((await siteApi(child)).status).toBe(404);
  });

  test('DPoP: a bound subject token is exchanged only with its key, and the result is bound too', async () => {
    const photos = await resource('photos', ['photos:read']);
    await h.admin('POST', '/admin/fronting', {
      source: 'photos',
      target: siteUri,
      scope_map: { 'photos:read': ['lights:read'] },
    });
    const app = await exchanger('photos app');
    const dpop = oidc.getDPoPHandle(app.config, await oidc.randomDPoPKeyPair());
    const flow = await codeRequest(app.config, { resource: photos.uri, scope: 'photos:read' });
    const callback = await authorizeInBrowser(new Browser(h.auth), flow.url, user);
    const bound = await oidc.authorizationCodeGrant(
      app.config,
      callback,
      { pkceCodeVerifier: flow.verifier, expectedState: flow.state },
      undefined,
      { DPoP: dpop },
    );
    await expect(exchange(app, bound.access_token, { resource: siteUri })).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    const out = await exchange(app, bound.access_token, { resource: siteUri }, dpop);
    expect(out.token_type).toBe('dpop');
    expect(decodeJwt(out.access_token).cnf).toEqual(decodeJwt(bound.access_token).cnf);
  });
});

describe('fronting links admin', () => {
  test('CRUD, dry_run, 409 on duplicates, resource view, delete 409 with dependents unless cascade=true', async () => {
    await resource('garden', ['garden:read', 'garden:write']);
    await resource('pond', ['pond:read']);
    const body = { source: 'garden', target: 'pond', scope_map: { 'garden:read': ['pond:read'] } };
    const dry = await h.admin('POST', '/admin/fronting?dry_run=true', body);
    expect(dry.status).toBe(200);
    expect((await h.admin('GET', '/admin/fronting/garden/pond')).status).toBe(404);
    const made = await h.admin('POST', '/admin/fronting', body);
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ source_slug: 'garden', target_slug: 'pond', created_by: 'admin' });
    expect((await h.admin('POST', '/admin/fronting', body)).status).toBe(409);
    for (const bad of [
      { ...body, scope_map: {} },
      { ...body, scope_map: { 'garden:read': [] } },
      { ...body, scope_map: { 'nope:read': ['pond:read'] } },
      { ...body, scope_map: { 'garden:read': ['nope'] } },
      { ...body, target: 'garden' },
      { ...body, target: 'no-such' },
    ])
      expect((await h.admin('POST', '/admin/fronting', bad)).status, JSON.stringify(bad)).toBe(400);
    const patched = await h.admin('PATCH', '/admin/fronting/garden/pond', {
      scope_map: { 'garden:write': ['pond:read'] },
    });
    expect(patched.body).toMatchObject({ scope_map: { 'garden:write': ['pond:read'] } });
    expect((await h.admin('PATCH', '/admin/fronting/garden/pond', { scope_map: {} })).status).toBe(400);
    expect((await h.admin('GET', '/admin/fronting')).body).toEqual(
      expect.arrayContaining([expect.objectContaining({ source_slug: 'garden', target_slug: 'pond' })]),
    );
    const view = (await h.admin('GET', '/admin/resources/pond/fronting')).body as Record<string, unknown[]>;
    expect(view).toMatchObject({
      slug: 'pond',
      fronts: [],
      fronted_by: [expect.objectContaining({ source_slug: 'garden' })],
    });
    for (const p of [
      '/admin/fronting/constructor/pond',
      '/admin/fronting/garden/__proto__',
      '/admin/resources/constructor/fronting',
    ])
      expect((await h.admin('GET', p)).status, p).toBe(404);
    const pond = ((await h.admin('GET', '/admin/resources?slug=pond')).body as Array<{ id: string }>)[0]!;
    const refused = await h.admin('DELETE', `/admin/resources/${pond.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({
      detail: expect.any(String),
      dependents: [expect.objectContaining({ source_slug: 'garden', target_slug: 'pond' })],
    });
    expect((await h.admin('DELETE', `/admin/resources/${pond.id}?cascade=true`)).status).toBe(204);
    expect((await h.admin('GET', '/admin/fronting/garden/pond')).status).toBe(404);
    expect((await h.admin('DELETE', '/admin/fronting/garden/pond')).status).toBe(404);
  });

  test('fronting links survive a restart (stored with the configuration)', async () => {
    await resource('attic', ['attic:read']);
    await h.admin('POST', '/admin/fronting', {
      source: 'attic',
      target: siteUri,
      scope_map: { 'attic:read': ['lights:read'] },
    });
    const before = (await h.admin('GET', '/admin/fronting')).body;
    const again = (await h.restart()) as AuthHub;
    h = Object.assign(again, { auth: again.listenerUrl('auth') });
    expect((await h.admin('GET', '/admin/fronting')).body).toEqual(before);
  });
});

// oauth4webapi also speaks the grant (genericTokenEndpointRequest); one call to show the wire format holds.
test('oauth4webapi genericTokenEndpointRequest exchanges too', async () => {
  await resource('shed', ['shed:read']);
  await h.admin('POST', '/admin/fronting', {
    source: 'shed',
    target: siteUri,
    scope_map: { 'shed:read': ['lights:read'] },
  });
  const app = await exchanger('shed app');
  const subject = await userToken(
    app,
    ((await h.admin('GET', '/admin/resources?slug=shed')).body as Array<{ uri: string }>)[0]!.uri,
    'shed:read',
  );
  const as = await oauth.processDiscoveryResponse(
    new URL(h.auth),
    await oauth.discoveryRequest(new URL(h.auth), {
      algorithm: 'oauth2',
      [oauth.allowInsecureRequests]: true,
    }),
  );
  const res = await oauth.genericTokenEndpointRequest(
    as,
    { client_id: app.id },
    oauth.ClientSecretBasic(app.secret),
    TE,
    new URLSearchParams({ subject_token: subject, subject_token_type: AT, resource: siteUri }),
    { [oauth.allowInsecureRequests]: true },
  );
  const out = await oauth.processGenericTokenEndpointResponse(as, { client_id: app.id }, res);
  expect(out).toMatchObject({ issued_token_type: AT, scope: 'lights:read' });
});
