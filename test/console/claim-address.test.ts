/**
 * Which addresses may claim a new hub. The hub trusts no proxy header (Koa's `app.proxy` is off), so the
 * address is the socket's: checked here as a unit for every kind of address, and by a real request from
 * loopback, which is taken; a request that claims to come from a public address through
 * X-Forwarded-For is judged by its socket, not by the header.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLocalAddress } from '../../plugins/console/claim/local-address.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';

describe('isLocalAddress', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '::1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.254',
    '192.168.1.20',
    '169.254.10.20',
    'fe80::1',
    'fd12:3456::1',
    '::ffff:192.168.1.20',
    '::ffff:127.0.0.1',
  ])('takes %s', (ip) => {
    expect(isLocalAddress(ip)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '172.15.0.1',
    '172.32.0.1',
    '192.169.0.1',
    '100.64.0.1',
    '11.0.0.1',
    '2001:db8::1',
    '2a00:1450::1',
    '::ffff:8.8.8.8',
    '',
    'localhost',
  ])('refuses %s', (ip) => {
    expect(isLocalAddress(ip)).toBe(false);
  });
});

describe('a claim over a real request', () => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub({ plugins: ['console'], adminKey: null });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('is judged by the socket address, never by X-Forwarded-For, and taken from loopback', async () => {
    const start = await fetch(`${t.adminUrl}/admin/ui/start`, { headers: { 'x-forwarded-for': '8.8.8.8' } });
    expect(await start.json()).toEqual({ claim: 'open', password: false });
    const weak = await fetch(`${t.adminUrl}/admin/ui/claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '8.8.8.8' },
      body: JSON.stringify({ password: 'short' }),
    });
    expect(weak.status).toBe(400);
    const res = await fetch(`${t.adminUrl}/admin/ui/claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '8.8.8.8' },
      body: JSON.stringify({ password: 'a good long password' }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('set-cookie')).toMatch(/hearth_console=.*HttpOnly/i);
    expect(t.logs.find((l) => l.msg === 'hub claimed: the owner password is set')?.from).toBe('127.0.0.1');
  });

  it('limits password guesses per address: ten at once, then 429 with Retry-After', async () => {
    const guess = () =>
      fetch(`${t.adminUrl}/admin/ui/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ password: 'not the password' }),
      });
    for (let i = 0; i < 10; i++) expect((await guess()).status).toBe(401);
    // The bucket refills at one guess per 2 s, so a slow machine may get one or two more before the 429.
    let refused: Response | undefined;
    for (let i = 0; i < 30 && !refused; i++) {
      const res = await guess();
      if (res.status === 429) refused = res;
      else expect(res.status).toBe(401);
    }
    expect(refused?.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    // The admin key is not a guess: it still signs in.
    const key = await fetch(`${t.adminUrl}/admin/ui/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: t.adminKey }),
    });
    expect(key.status).toBe(200);
  });
});
