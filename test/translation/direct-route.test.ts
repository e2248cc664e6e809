/**
 * `POST /v2/translate` is answered ahead of the Koa stack (a direct route) when the path is exactly that;
 * any other spelling (`/v2/translate/`, `/V2/translate`) goes through the Koa route. Both must give the
 * same answers, errors, headers, billing and log lines for the same requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeDeepl } from './fakes/deepl.ts';
import type { FakeUpstream } from './fakes/server.ts';
import { type Json, startTranslation, type TranslationHub } from './harness.ts';

let h: TranslationHub;
let upstream: FakeUpstream;
let secret: string;
const UPSTREAM_KEY = 'upstream-secret-key:fx';

beforeAll(async () => {
  upstream = await fakeDeepl(UPSTREAM_KEY);
  h = await startTranslation({ engines: [{ type: 'deepl', url: upstream.url, apiKey: UPSTREAM_KEY }] });
  secret = (await h.createKey('direct')).secret;
});
afterAll(async () => {
  await h.t.stop();
  await upstream.close();
});

interface Sent {
  headers?: Record<string, string>;
  body?: string;
}

const json = (value: unknown, headers: Record<string, string> = {}): Sent => ({
  headers: { authorization: `DeepL-Auth-Key ${secret}`, 'content-type': 'application/json', ...headers },
  body: JSON.stringify(value),
});
const form = (text: string, headers: Record<string, string> = {}): Sent => ({
  headers: {
    authorization: `DeepL-Auth-Key ${secret}`,
    'content-type': 'application/x-www-form-urlencoded',
    ...headers,
  },
  body: text,
});

/** The parts of an answer that must not depend on the path's spelling. */
async function answer(path: string, sent: Sent) {
  const res = await fetch(`${h.t.url}${path}`, { method: 'POST', ...sent });
  const text = await res.text();
  let body: Json = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return {
    status: res.status,
    body,
    contentType: res.headers.get('content-type'),
    nosniff: res.headers.get('x-content-type-options'),
    traceId: /^[0-9a-f]{32}$/.test(res.headers.get('x-trace-id') ?? ''),
    requestId: res.headers.get('x-request-id') !== null,
    retryAfter: res.headers.get('retry-after'),
  };
}

describe('the direct /v2/translate route and the Koa route', () => {
  it('give the same answers and the same errors for the same requests', async () => {
    const { secret: blocked, id } = await h.createKey('blocked');
    await h.admin('PUT', '/v2/admin/developer-keys/limits', { key_id: id, characters: 0 });
    const cases: Array<[string, Sent]> = [
      ['JSON', json({ text: ['Hello', 'world'], target_lang: 'DE', show_billed_characters: true })],
      ['form', form('text=Hello&text=again&target_lang=de&source_lang=en&formality=prefer_more')],
      [
        'tags',
        json({ text: ['<p>Hi <x>A</x></p>'], target_lang: 'DE', tag_handling: 'xml', ignore_tags: 'x' }),
      ],
      ['no text', json({ target_lang: 'DE' })],
      ['unknown target', form('text=a&target_lang=xx')],
      ['bad formality', json({ text: ['a'], target_lang: 'DE', formality: 'posh' })],
      ['malformed JSON', { ...json({}), body: '{"text":' }],
      ['media type', { ...json({}), headers: { ...json({}).headers, 'content-type': 'text/xml' } }],
      ['too large', form(`target_lang=de&text=${'a'.repeat(128 * 1024)}`)],
      ['malformed XML', json({ text: ['<p>a'], target_lang: 'DE', tag_handling: 'xml' })],
      ['unknown glossary', json({ text: ['a'], target_lang: 'DE', source_lang: 'EN', glossary_id: 'nope' })],
      [
        'long reporting tag',
        json({ text: ['a'], target_lang: 'DE' }, { 'x-deepl-reporting-tag': 'x'.repeat(101) }),
      ],
      [
        'no key',
        { headers: { 'content-type': 'application/json' }, body: '{"text":["a"],"target_lang":"DE"}' },
      ],
      ['unknown key', json({ text: ['a'], target_lang: 'DE' }, { authorization: 'DeepL-Auth-Key nope' })],
      ['bearer garbage', json({ text: ['a'], target_lang: 'DE' }, { authorization: 'Bearer abc' })],
      [
        'key at its limit',
        json({ text: ['a'], target_lang: 'DE' }, { authorization: `DeepL-Auth-Key ${blocked}` }),
      ],
    ];
    for (const [name, sent] of cases) {
      const direct = await answer('/v2/translate', sent);
      const generic = await answer('/v2/translate/', sent);
      expect({ name, ...generic }).toEqual({ name, ...direct });
      expect(direct.traceId && direct.requestId, name).toBe(true);
      expect(direct.nosniff, name).toBe('nosniff');
    }
    // Spot checks that the cases did reach what they name.
    expect((await answer('/v2/translate', cases[0]![1])).body).toEqual({
      translations: [
        { detected_source_language: 'EN', text: 'HELLO', billed_characters: 5 },
        { detected_source_language: 'EN', text: 'WORLD', billed_characters: 5 },
      ],
    });
    const statuses = [];
    for (const [, sent] of cases) statuses.push((await answer('/v2/translate', sent)).status);
    expect(statuses).toEqual([
      200, 200, 200, 400, 400, 400, 400, 415, 413, 400, 404, 400, 403, 403, 403, 456,
    ]);
  });

  it('bill the same characters to the key, whichever path answered', async () => {
    const { secret: counted } = await h.createKey('counted');
    const auth = { authorization: `DeepL-Auth-Key ${counted}` };
    const usage = async () =>
      (await h.call('GET', '/v2/usage', { headers: auth })).body.character_count as number;
    const sent = json({ text: ['twelve chars'], target_lang: 'DE' }, auth);
    expect((await answer('/v2/translate', sent)).status).toBe(200);
    expect(await usage()).toBe(12);
    expect((await answer('/V2/Translate', sent)).status).toBe(200); // the router matches case-insensitively
    expect(await usage()).toBe(24);
  });

  it('echo a sane X-Request-Id, log the request with its key redacted, and count it in the latency metric', async () => {
    const before = h.t.logs.length;
    const res = await fetch(`${h.t.url}/v2/translate?auth_key=${encodeURIComponent(secret)}`, {
      method: 'POST',
      ...json({ text: ['a'], target_lang: 'DE' }, { 'x-request-id': 'req-direct-1' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('req-direct-1');
    const line = h.t.logs.slice(before).find((l) => l.reqId === 'req-direct-1' && l.msg === 'request');
    expect(line).toMatchObject({ method: 'POST', status: 200 });
    expect(String(line?.url)).toMatch(/^\/v2\/translate\?auth_key=/);
    expect(JSON.stringify(h.t.logs)).not.toContain(encodeURIComponent(secret));
    const metrics = await fetch(`${h.t.adminUrl}/metrics`, {
      headers: { authorization: `Basic ${Buffer.from(`metrics:${h.t.adminKey}`).toString('base64')}` },
    });
    expect(await metrics.text()).toMatch(
      /hearth_http_request_duration_seconds_count\{[^}]*route="\/v2\/translate"[^}]*method="POST"[^}]*code="2xx"[^}]*\} [1-9]/,
    );
  });

  it('leave other methods on the path to the Koa stack (405 with Allow)', async () => {
    const res = await h.call('GET', '/v2/translate', { key: secret });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(res.headers.get('x-trace-id')).toMatch(/^[0-9a-f]{32}$/);
  });
});
