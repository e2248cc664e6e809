import { generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthHub, adminUser, Browser, startAuthHub } from './helpers.ts';
import { resignIdToken, startUpstreamProvider, type UpstreamProvider } from './upstream-provider.ts';

// Upstream OpenID login against a real provider (oidc-provider) on loopback: /oidc/start → provider →
// /oidc/callback, driven by an HTTP client that keeps cookies and follows redirects by hand.

let up: UpstreamProvider;
let h: AuthHub;
const UP_SECRET = 'upstream-client-secret-for-hearth';
/** Every body and header Hearth sent in this file, searched for upstream tokens at the end. */
const seen: string[] = [];

class RecordingBrowser extends Browser {
  override async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const res = await super.fetch(url, init);
    if (new URL(url, this.base).origin === new URL(h.auth).origin) {
      const body = await res.clone().text();
      seen.push(body, JSON.stringify([...res.headers]));
    }
    return res;
  }
}

/** Follows redirects from `start` until the answer is not a redirect or leaves the provider for Hearth's target. */
async function follow(b: Browser, start: string): Promise<{ res: Response; callback?: string }> {
  let url = start;
  let callback: string | undefined;
  for (let i = 0; i < 12; i++) {
    const res = await b.fetch(url);
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location) return { res, ...(callback ? { callback } : {}) };
    const next = new URL(location, url.startsWith('http') ? url : new URL(url, b.base));
    if (next.pathname === '/oidc/callback') callback = next.href;
    // Stop once Hearth sends the browser on after the callback.
    if (url.includes('/oidc/callback')) return { res, ...(callback ? { callback } : {}) };
    url = next.href;
  }
  throw new Error('too many redirects');
}

async function signedInAs(b: Browser): Promise<string | null> {
  const res = await b.fetch('/');
  if (res.status !== 200) return null;
  return /signed in as (.+?)\.<\/p>/.exec(await res.text())?.[1] ?? null;
}

beforeAll(async () => {
  up = await startUpstreamProvider();
  h = await startAuthHub({
    config: {
      plugins: {
        auth: {
          oidc: {
            enabled: true,
            providers: [
              {
                id: 'home',
                display_name: 'Home Sign-In',
                issuer: up.issuer,
                client_id: 'hearth',
                link_verified_email: true,
              },
              { id: 'family', issuer: up.issuer, client_id: 'hearth-family', create_users: true },
            ],
          },
        },
      },
    },
  });
  const callback = `${h.auth}/oidc/callback`;
  await up.configure([
    {
      client_id: 'hearth',
      client_secret: UP_SECRET,
      redirect_uris: [callback],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
    {
      client_id: 'hearth-family',
      redirect_uris: [callback],
      grant_types: ['authorization_code'],
      token_endpoint_auth_method: 'none',
    },
  ]);
  const set = await h.admin('PUT', '/admin/oidc/providers/home/client-secret', { client_secret: UP_SECRET });
  expect(set.status).toBe(204);
});

afterAll(async () => {
  await h?.stop();
  await up?.close();
});

describe('upstream OpenID login', () => {
  it('the login page offers the provider; signing in there links a verified email and starts a session', async () => {
    const ann = await adminUser(h, 'ann@home.test');
    up.nextAccount = { sub: 'up-ann', email: 'ANN@home.test', email_verified: true, name: 'Ann' };
    const b = new RecordingBrowser(h.auth);
    const page = await (await b.fetch('/login?redirect=/')).text();
    const link = /href="(\/oidc\/start\?provider=home[^"]*)"/.exec(page)?.[1]?.replace(/&amp;/g, '&');
    expect(link).toBeDefined();
    expect(page).toContain('Sign in with Home Sign-In');

    const start = await b.fetch(link!);
    expect(start.status).toBe(303);
    const authz = new URL(start.headers.get('location')!);
    expect(authz.origin).toBe(up.issuer);
    expect(authz.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authz.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authz.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authz.searchParams.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authz.searchParams.get('redirect_uri')).toBe(`${h.auth}/oidc/callback`);

    const { res, callback } = await follow(b, authz.href);
    expect(callback).toBeDefined();
    expect(new URL(callback!).searchParams.get('iss')).toBe(up.issuer); // RFC 9207 from the provider
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/');
    expect(await signedInAs(b)).toBe('ann@home.test');

    const audit = (await h.admin('GET', '/admin/audit?action=user.oidc_login')).body as Array<{
      actor_id: string;
      detail: string;
    }>;
    expect(audit.some((e) => e.actor_id === ann.id && e.detail === 'home verified_email')).toBe(true);

    // The link is (iss, sub) from now on: a changed email at either end does not matter.
    await h.admin('PATCH', `/admin/users/${ann.id}`, { email: 'ann.renamed@home.test' });
    up.nextAccount = { sub: 'up-ann', email: 'someone-else@home.test', email_verified: true };
    const b2 = new RecordingBrowser(h.auth);
    const again = await follow(b2, '/oidc/start?provider=home&redirect=/consent%3Fx%3D1');
    expect(again.res.headers.get('location')).toBe('/consent?x=1');
    expect(await signedInAs(b2)).toBe('ann.renamed@home.test');
  });

  it('discovery and the JWKS are fetched once and cached across sign-ins', async () => {
    const before = {
      disco: up.hits.get('/.well-known/openid-configuration') ?? 0,
      jwks: up.hits.get('/jwks') ?? 0,
    };
    expect(before.disco).toBe(1);
    expect(before.jwks).toBe(1);
    up.nextAccount = { sub: 'up-ann', email: 'ann@home.test', email_verified: true };
    await follow(new RecordingBrowser(h.auth), '/oidc/start?provider=home');
    expect(up.hits.get('/.well-known/openid-configuration')).toBe(1);
    expect(up.hits.get('/jwks')).toBe(1);
  });

  it('an unverified email links nobody, and a provider without create_users lets no stranger in', async () => {
    await adminUser(h, 'bob@home.test');
    up.nextAccount = { sub: 'up-bob', email: 'bob@home.test', email_verified: false };
    const b = new RecordingBrowser(h.auth);
    const { res } = await follow(b, '/oidc/start?provider=home');
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('No Hearth account is linked');
    expect(await signedInAs(b)).toBeNull();
  });

  it('a provider with create_users makes a new oidc user, but never a second account for a taken email', async () => {
    up.nextAccount = { sub: 'up-carol', email: 'carol@home.test', email_verified: true, name: 'Carol' };
    const b = new RecordingBrowser(h.auth);
    await follow(b, '/oidc/start?provider=family');
    expect(await signedInAs(b)).toBe('carol@home.test');
    const users = (await h.admin('GET', '/admin/users')).body as Array<{ email: string; provider: string }>;
    expect(users.find((u) => u.email === 'carol@home.test')?.provider).toBe('oidc');

    // Bob exists locally; the family provider does not link by email, so it refuses rather than duplicate.
    up.nextAccount = { sub: 'up-bob-2', email: 'bob@home.test', email_verified: true };
    const { res } = await follow(new RecordingBrowser(h.auth), '/oidc/start?provider=family');
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('cannot be linked automatically');
  });

  it('negative: a state nobody issued, a callback in another browser, and a replayed callback are refused', async () => {
    up.nextAccount = { sub: 'up-ann', email: 'ann@home.test', email_verified: true };
    const made = await h.admin('GET', '/admin/users');
    expect(made.status).toBe(200);
    const b = new RecordingBrowser(h.auth);
    const forged = await b.fetch(`/oidc/callback?code=abc&state=${'A'.repeat(43)}`);
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain('expired or was already used');

    // The provider's answer carried to another browser (login CSRF): refused, and used up.
    const start = await b.fetch('/oidc/start?provider=home');
    const withProvider = await followUntilCallback(b, start.headers.get('location')!);
    const thief = new RecordingBrowser(h.auth);
    const stolen = await thief.fetch(withProvider);
    expect(stolen.status).toBe(400);
    expect(await stolen.text()).toContain('started in another browser');
    expect(await signedInAs(thief)).toBeNull();
    const late = await b.fetch(withProvider);
    expect(late.status).toBe(400);

    // A completed callback presented again does nothing.
    const b2 = new RecordingBrowser(h.auth);
    const s2 = await b2.fetch('/oidc/start?provider=home');
    const cb = await followUntilCallback(b2, s2.headers.get('location')!);
    expect((await b2.fetch(cb)).status).toBe(303);
    const sessionsBefore = await sessionsOf(h, 'ann');
    const replay = await b2.fetch(cb);
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('expired or was already used');
    expect(await sessionsOf(h, 'ann')).toBe(sessionsBefore);
  });

  it('negative: a refusal at the provider and an answer naming another issuer (RFC 9207) sign nobody in', async () => {
    up.nextAccount = { sub: 'up-ann', email: 'ann@home.test', email_verified: true };
    up.denyNext = true;
    const b = new RecordingBrowser(h.auth);
    const { res } = await follow(b, '/oidc/start?provider=home');
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('access_denied');
    expect(await signedInAs(b)).toBeNull();

    const b2 = new RecordingBrowser(h.auth);
    const start = await b2.fetch('/oidc/start?provider=home');
    const callback = new URL(await followUntilCallback(b2, start.headers.get('location')!));
    callback.searchParams.set('iss', 'https://mix-up.example');
    const mixed = await b2.fetch(callback.href);
    expect(mixed.status).toBe(400);
    expect(await signedInAs(b2)).toBeNull();
    expect(await lastFailure(h)).toContain('iss');
  });

  it('negative: an ID token with another nonce, or signed by a foreign key, is refused', async () => {
    up.nextAccount = { sub: 'up-ann', email: 'ann@home.test', email_verified: true };
    up.tamper = async (body) => {
      body.id_token = await resignIdToken(body.id_token as string, up.signingKey, up.kid, (c) => {
        c.nonce = 'a-nonce-from-another-sign-in';
      });
    };
    try {
      const b = new RecordingBrowser(h.auth);
      const { res } = await follow(b, '/oidc/start?provider=home');
      expect(res.status).toBe(400);
      expect(await signedInAs(b)).toBeNull();
      let failed = await lastFailure(h);
      expect(failed).toContain('nonce');

      const { privateKey: foreign } = await generateKeyPair('RS256');
      up.tamper = async (body) => {
        body.id_token = await resignIdToken(body.id_token as string, foreign, up.kid, () => {});
      };
      const b2 = new RecordingBrowser(h.auth);
      const r2 = await follow(b2, '/oidc/start?provider=home');
      expect(r2.res.status).toBe(400);
      expect(await signedInAs(b2)).toBeNull();
      failed = await lastFailure(h);
      expect(failed).toContain('signature');

      // A token for another client (aud) is refused too.
      up.tamper = async (body) => {
        body.id_token = await resignIdToken(body.id_token as string, up.signingKey, up.kid, (c) => {
          c.aud = 'someone-else';
        });
      };
      const b3 = new RecordingBrowser(h.auth);
      expect((await follow(b3, '/oidc/start?provider=home')).res.status).toBe(400);
      expect(await signedInAs(b3)).toBeNull();
    } finally {
      up.tamper = null;
    }
  });

  it('the provider list and system config say upstream login is on; the client secret is never read back', async () => {
    const list = (await h.admin('GET', '/admin/oidc/providers')).body as Array<Record<string, unknown>>;
    expect(list.map((p) => [p.id, p.has_client_secret])).toEqual([
      ['home', true],
      ['family', false],
    ]);
    expect(JSON.stringify(list)).not.toContain(UP_SECRET);
    const config = (await h.admin('GET', '/admin/system/config')).body as { oidc: { enabled: boolean } };
    expect(config.oidc.enabled).toBe(true);
    expect(
      (await h.admin('PUT', '/admin/oidc/providers/nope/client-secret', { client_secret: 'x' })).status,
    ).toBe(404);
  });

  it('no response and no log line carries an upstream token or the upstream client secret', () => {
    expect(up.issuedTokens.length).toBeGreaterThan(5);
    const logs = JSON.stringify(h.logs);
    const responses = seen.join('\n');
    for (const t of [...up.issuedTokens, UP_SECRET]) {
      expect(logs.includes(t)).toBe(false);
      expect(responses.includes(t)).toBe(false);
    }
  });
});

describe('local password login disabled', () => {
  it('POST /login is 404 and the page offers only the upstream provider', async () => {
    const hub = await startAuthHub({
      config: {
        plugins: {
          auth: {
            local_login: false,
            oidc: { enabled: true, providers: [{ id: 'home', issuer: up.issuer, client_id: 'hearth' }] },
          },
        },
      },
    });
    try {
      const b = new Browser(hub.auth);
      const page = await (await b.fetch('/login')).text();
      expect(page).not.toContain('<form');
      expect(page).toContain('/oidc/start?provider=home');
      const post = await b.post('/login', { email: 'ann@home.test', password: 'whatever-it-is' });
      expect(post.status).toBe(404);
    } finally {
      await hub.stop();
    }
  });
});

async function followUntilCallback(b: Browser, from: string): Promise<string> {
  let url = from;
  for (let i = 0; i < 10; i++) {
    const res = await b.fetch(url);
    const location = new URL(res.headers.get('location')!, url);
    if (location.pathname === '/oidc/callback') return location.href;
    url = location.href;
  }
  throw new Error('no callback');
}

async function sessionsOf(hub: AuthHub, name: string): Promise<number> {
  const users = (await hub.admin('GET', '/admin/users')).body as Array<{ id: string; email: string }>;
  const u = users.find((x) => x.email.startsWith(name))!;
  const s = (await hub.admin('GET', `/admin/users/${u.id}/sessions`)).body as { sessions: unknown[] };
  return s.sessions.length;
}

async function lastFailure(hub: AuthHub): Promise<string> {
  const events = (await hub.admin('GET', '/admin/audit?action=user.oidc_login_failed')).body as Array<{
    detail: string;
    created_at: string;
  }>;
  return events.map((e) => e.detail).join(' | ');
}
