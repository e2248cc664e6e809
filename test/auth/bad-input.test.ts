/** Bad input gets a 4xx, never a 500 or a hang, on every auth endpoint (and nothing stored is lost). */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type AuthHub, adminClient, startAuthHub } from './helpers.ts';

let h: AuthHub;
beforeAll(async () => {
  h = await startAuthHub();
});
afterAll(async () => {
  await h?.stop();
});

const bodies: Array<[string, string | undefined]> = [
  ['application/json', '{"x":'],
  ['application/json', 'null'],
  ['application/json', '[1,2]'],
  [
    'application/json',
    '{"client_name":5,"redirect_uris":"x","scopes":[null],"policy":"x","mode":7,"url":{}}',
  ],
  ['application/x-www-form-urlencoded', 'grant_type=client_credentials&client_id=%ZZ&token=%'],
  ['application/x-www-form-urlencoded', `token=${'a'.repeat(70_000)}`],
  ['text/plain', 'hello'],
  ['application/x-www-form-urlencoded', undefined],
];

describe('malformed requests', () => {
  test('public endpoints answer 4xx (or 200 where RFC 7009 says so)', async () => {
    const c = await adminClient(h, { scope: 'lights:read' });
    const auths = [
      undefined,
      'Basic !!!',
      `Basic ${Buffer.from('nocolon').toString('base64')}`,
      `Basic ${Buffer.from(`${c.client_id}:%E0%A4%A`).toString('base64')}`,
    ];
    for (const path of [
      '/oauth/token',
      '/oauth/introspect',
      '/oauth/revoke',
      '/oauth/register',
      '/login',
      '/consent',
      '/logout',
    ]) {
      for (const [type, body] of bodies) {
        for (const authorization of auths) {
          const res = await fetch(`${h.auth}${path}`, {
            method: 'POST',
            headers: { 'content-type': type, ...(authorization ? { authorization } : {}) },
            ...(body === undefined ? {} : { body }),
          });
          expect(res.status, `${path} ${type} ${body?.slice(0, 30)} ${authorization}`).toBeLessThan(500);
        }
      }
    }
    for (const q of [
      '',
      '?client_id=a&client_id=b',
      '?client_id=%',
      `?redirect_uri=${'x'.repeat(5000)}`,
      '?response_type[]=x',
    ]) {
      expect((await fetch(`${h.auth}/oauth/authorize${q}`, { redirect: 'manual' })).status).toBeLessThan(500);
      expect((await fetch(`${h.auth}/consent${q}`, { redirect: 'manual' })).status).toBeLessThan(500);
      expect((await fetch(`${h.auth}/login${q}`, { redirect: 'manual' })).status).toBeLessThan(500);
    }
  });

  test('admin writes answer 4xx and leave the stored data as it was', async () => {
    const c = await adminClient(h, { scope: 'lights:read' });
    const before = (await h.admin('GET', `/admin/clients/${c.client_id}`)).body;
    const writes: Array<[string, string]> = [
      ['POST', '/admin/clients'],
      ['PATCH', `/admin/clients/${c.client_id}`],
      ['POST', '/admin/users'],
      ['POST', '/admin/resources'],
      ['PATCH', '/admin/settings/dcr'],
      ['POST', '/admin/resources/translation/policy/exchange/allowed-clients'],
      ['POST', '/admin/resources/translation/policy/connect/allowed-return-urls'],
    ];
    for (const [method, path] of writes) {
      for (const [type, body] of bodies) {
        const res = await fetch(`${h.adminUrl}${path}`, {
          method,
          headers: { authorization: `Bearer ${h.adminKey}`, 'content-type': type },
          ...(body === undefined ? {} : { body }),
        });
        expect(res.status, `${method} ${path} ${body?.slice(0, 30)}`).toBeGreaterThanOrEqual(400);
        expect(res.status, `${method} ${path} ${body?.slice(0, 30)}`).toBeLessThan(500);
      }
    }
    for (const q of [
      'limit=-1',
      'limit=1e3',
      'offset=x',
      'since=yesterday',
      'until=%',
      'action=a&action=b',
    ]) {
      expect((await h.admin('GET', `/admin/audit?${q}`)).status).toBe(400);
    }
    expect((await h.admin('GET', `/admin/clients/${c.client_id}`)).body).toEqual(before);
  });
});
