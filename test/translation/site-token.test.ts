import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from '../auth/helpers.ts';
import { fakeDeepl } from './fakes/deepl.ts';
import type { FakeUpstream } from './fakes/server.ts';
import { startTranslation, type TranslationHub } from './harness.ts';

let h: TranslationHub;
let upstream: FakeUpstream;

beforeAll(async () => {
  upstream = await fakeDeepl('k');
  h = await startTranslation({
    plugins: ['lighting', 'auth'],
    engines: [{ type: 'deepl', url: upstream.url, apiKey: 'k' }],
    config: { plugins: { auth: { host: '127.0.0.1' } } },
  });
});
afterAll(async () => {
  await h.t.stop();
  await upstream.close();
});

async function token(scope: string, resource: string): Promise<string> {
  const c = await adminClient(h.t, {
    scope,
    ...(resource.startsWith('urn:hearth:site') ? { resources: [resource] } : {}),
  });
  const res = await fetch(`${h.t.listenerUrl('auth')}/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope }),
  });
  const body = (await res.json()) as { access_token?: string };
  if (!body.access_token) throw new Error(`no token: ${JSON.stringify(body)}`);
  return body.access_token;
}

describe('site tokens from the auth plugin', () => {
  it('accepts a Bearer token with the translate scope and bills its client', async () => {
    const bearer = await token('translate', 'urn:hearth:translation');
    const res = await h.call('POST', '/v2/translate', {
      headers: { authorization: `Bearer ${bearer}` },
      json: { text: ['Good night'], target_lang: 'DE' },
    });
    expect(res.status).toBe(200);
    expect(res.body.translations[0].text).toBe('GOOD NIGHT');
    const usage = await h.call('GET', '/v2/usage', { headers: { authorization: `Bearer ${bearer}` } });
    expect(usage.body.character_count).toBe('Good night'.length);
  });

  it('refuses tokens without the translate scope, and garbage, with 403', async () => {
    const sites = (await h.t.admin('GET', '/admin/resources')).body as Array<{ uri: string }>;
    const site = sites.find((r) => r.uri.startsWith('urn:hearth:site:'))!.uri;
    const lights = await token('lights:read', site);
    for (const authorization of [`Bearer ${lights}`, 'Bearer not.a.token']) {
      const res = await h.call('POST', '/v2/translate', {
        headers: { authorization },
        json: { text: ['x'], target_lang: 'DE' },
      });
      expect(res.status).toBe(403);
    }
  });
});
