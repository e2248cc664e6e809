/** Login limits (spec rule 5, docs/auth.md#behaviour-where-the-spec-is-silent and §4.3): lockout, per-IP bucket, disabled local login. */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import * as argon2 from '@node-rs/argon2';
import { describe, expect, test, vi } from 'vitest';
import { adminClient, adminUser, Browser, login, siteResourceUri, startAuthHub } from './helpers.ts';

describe('lockout and disabled local login', () => {
  test('429 with a real Retry-After after auth_fail_max failures', async () => {
    const hub = await startAuthHub({
      config: { plugins: { auth: { rate_limit: { auth_fail_max: 3, auth_lockout: 120 } } } },
    });
    try {
      await adminUser(hub, 'bob@home.test', 'bob password 123');
      const b = new Browser(hub.auth);
      const csrf = /name="csrf_token" value="([^"]+)"/.exec(await (await b.fetch('/login')).text())![1]!;
      const attempt = (password: string) =>
        b.post('/login', { csrf_token: csrf, email: 'bob@home.test', password, redirect: '/' });
      for (let i = 0; i < 3; i++) expect((await attempt('wrong')).status).toBe(422);
      const locked = await attempt('bob password 123');
      expect(locked.status).toBe(429);
      const retry = Number(locked.headers.get('retry-after'));
      expect(retry).toBeGreaterThan(100);
      expect(retry).toBeLessThanOrEqual(120);
      expect(locked.headers.get('content-type')).toMatch(/text\/html/);
      const audit = (await hub.admin('GET', '/admin/audit?action=auth.locked_out')).body as unknown[];
      expect(audit.length).toBe(1);
    } finally {
      await hub.stop();
    }
  });

  test('spraying many identities from one address meets a per-IP 429 before the password hash', async () => {
    const hub = await startAuthHub();
    try {
      const b = new Browser(hub.auth);
      const csrf = /name="csrf_token" value="([^"]+)"/.exec(await (await b.fetch('/login')).text())![1]!;
      // All at once, so the verdict does not depend on how fast this machine hashes.
      const all = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          b.post('/login', {
            csrf_token: csrf,
            email: `guess${i}@home.test`,
            password: 'guess',
            redirect: '/',
          }),
        ),
      );
      const statuses = all.map((r) => r.status);
      expect(statuses.filter((x) => x === 422).length).toBeGreaterThanOrEqual(20); // the burst
      expect(statuses.every((x) => x === 422 || x === 429)).toBe(true);
      const limited = all.find((r) => r.status === 429);
      expect(limited).toBeDefined();
      expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(limited!.headers.get('content-type')).toMatch(/text\/html/);
    } finally {
      await hub.stop();
    }
  });

  test('a password hash with old parameters is upgraded at the next login', async () => {
    const first = await startAuthHub();
    const u = await adminUser(first, 'gil@home.test', 'gil password 123');
    await first.stop({ keepData: true });
    const file = path.join(first.dataDir, 'auth.data.json');
    const data = JSON.parse(readFileSync(file, 'utf8'));
    data.users[u.id].password_hash = await argon2.hash(u.password, {
      algorithm: 2,
      memoryCost: 8192,
      timeCost: 1,
      parallelism: 1,
    });
    writeFileSync(file, JSON.stringify(data));
    const hub = await startAuthHub({ dataDir: first.dataDir });
    try {
      expect((await login(new Browser(hub.auth), u.email, u.password)).status).toBe(303);
      await hub.stop({ keepData: true });
      const after = JSON.parse(readFileSync(file, 'utf8')).users[u.id].password_hash as string;
      expect(after).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    } finally {
      await hub.stop().catch(() => {});
      rmSync(first.dataDir, { recursive: true, force: true });
    }
  });

  test('POST /login is 404 when local login is disabled', async () => {
    const hub = await startAuthHub({ config: { plugins: { auth: { local_login: false } } } });
    try {
      const res = await fetch(`${hub.auth}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'email=a&password=b',
      });
      expect(res.status).toBe(404);
      // Answered before the body is read: a request whose body never comes still gets its 404.
      const early = await new Promise<number>((resolve, reject) => {
        const req = http.request(`${hub.auth}/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '1000000' },
        });
        req.on('response', (r) => {
          resolve(r.statusCode ?? 0);
          req.destroy();
        });
        req.on('error', reject);
        req.flushHeaders();
      });
      expect(early).toBe(404);
      const page = await (await fetch(`${hub.auth}/login`)).text();
      expect(page).not.toContain('type="password"');
    } finally {
      await hub.stop();
    }
  });
});

describe('per-IP limit on client authentication at /oauth/token (and introspect, revoke)', () => {
  test('60 wrong client secrets: the first client_fail_burst are 401, then 429 slow_down with Retry-After, even for the right secret; time restores it', async () => {
    // The defaults: client_fail_burst 20, client_fail_per_minute 20.
    const hub = await startAuthHub();
    try {
      const site = await siteResourceUri(hub);
      const c = await adminClient(hub, { scope: 'lights:read' });
      const token = (secret: string, endpoint = '/oauth/token') =>
        fetch(`${hub.auth}${endpoint}`, {
          method: 'POST',
          headers: { authorization: `Basic ${Buffer.from(`${c.client_id}:${secret}`).toString('base64')}` },
          body: new URLSearchParams({ grant_type: 'client_credentials', resource: site, token: 'x' }),
        });
      // Good requests cost nothing: a busy machine client is never slowed by its own success.
      for (let i = 0; i < 30; i++) expect((await token(c.client_secret!)).status).toBe(200);
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
      const statuses: number[] = [];
      let last: Response | undefined;
      for (let i = 0; i < 60; i++) {
        last = await token(`wrong secret ${i}`);
        statuses.push(last.status);
      }
      expect(statuses.filter((x) => x === 401)).toHaveLength(20);
      expect(statuses.slice(20).every((x) => x === 429)).toBe(true);
      expect(await last!.json()).toMatchObject({ error: 'slow_down' });
      const retry = Number(last!.headers.get('retry-after'));
      expect(retry).toBeGreaterThanOrEqual(1);
      expect(retry).toBeLessThanOrEqual(3);
      // While refused, the right secret is refused too (no oracle), and so are introspect and revoke.
      expect((await token(c.client_secret!)).status).toBe(429);
      expect((await token('wrong', '/oauth/introspect')).status).toBe(429);
      expect((await token('wrong', '/oauth/revoke')).status).toBe(429);
      vi.setSystemTime(Date.now() + retry * 1000);
      expect((await token(c.client_secret!)).status).toBe(200);
    } finally {
      vi.useRealTimers();
      await hub.stop();
    }
  });
});
