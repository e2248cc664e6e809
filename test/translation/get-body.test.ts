/**
 * Parameters of GET routes sent in a body. DeepL's Python client sends `GET /v2/languages` with
 * `type=target` as a form body (fetch cannot send a GET body, so these tests speak node:http).
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeDeepl } from './fakes/deepl.ts';
import type { FakeUpstream } from './fakes/server.ts';
import { type Json, startTranslation, type TranslationHub } from './harness.ts';

let h: TranslationHub;
let upstream: FakeUpstream;
let secret: string;
const today = new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  upstream = await fakeDeepl('k');
  h = await startTranslation({ engines: [{ type: 'deepl', url: upstream.url, apiKey: 'k' }] });
  secret = (await h.createKey('get bodies')).secret;
});
afterAll(async () => {
  await h.t.stop();
  await upstream.close();
});

/** A GET with a body, as the `requests` library sends `data=` on a GET. */
function getWithBody(
  path: string,
  key: string,
  body: { form?: string; json?: unknown },
): Promise<{ status: number; body: Json }> {
  const payload = body.json !== undefined ? JSON.stringify(body.json) : (body.form ?? '');
  const type = body.json !== undefined ? 'application/json' : 'application/x-www-form-urlencoded';
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${h.t.url}${path}`,
      {
        method: 'GET',
        headers: {
          authorization: `DeepL-Auth-Key ${key}`,
          'content-type': type,
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const codes = (list: Array<{ language: string }>) => list.map((l) => l.language);

describe('GET parameters in a body', () => {
  it('regression: GET /v2/languages reads type=target from a form body (EN-GB, EN-US, supports_formality)', async () => {
    for (const body of [{ form: 'type=target' }, { json: { type: 'target' } }]) {
      const res = await getWithBody('/v2/languages', secret, body);
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(codes(res.body)).toEqual(expect.arrayContaining(['EN-GB', 'EN-US']));
      expect(codes(res.body)).not.toContain('EN');
      expect(res.body.find((l: { language: string }) => l.language === 'DE').supports_formality).toBe(true);
    }
    const source = await getWithBody('/v2/languages', secret, { form: 'type=source' });
    expect(codes(source.body)).toContain('EN');
    expect(source.body[0]).not.toHaveProperty('supports_formality');
    const wrong = await getWithBody('/v2/languages', secret, { form: 'type=both' });
    expect([wrong.status, wrong.body.message]).toEqual([400, expect.stringContaining("'type'")]);
  });

  it('reads the query as before, and refuses a parameter given differently in both', async () => {
    const query = await getWithBody('/v2/languages?type=target', secret, { form: '' });
    expect(codes(query.body)).toContain('EN-GB');
    const same = await getWithBody('/v2/languages?type=target', secret, { form: 'type=target' });
    expect(codes(same.body)).toContain('EN-GB');
    const clash = await getWithBody('/v2/languages?type=target', secret, { json: { type: 'source' } });
    expect([clash.status, clash.body.message]).toEqual([400, expect.stringContaining("'type'")]);
  });

  it('reads GET /v3/languages and the analytics parameters from a body too', async () => {
    const v3 = await getWithBody('/v3/languages', secret, { form: 'resource=glossary' });
    expect([v3.status, v3.body.message]).toEqual([400, expect.stringContaining("'resource'")]);
    const fine = await getWithBody('/v3/languages', secret, { json: { resource: 'translate_text' } });
    expect(fine.status).toBe(200);

    for (const body of [
      { form: `start_date=${today}&end_date=${today}&group_by=key` },
      { json: { start_date: today, end_date: today, group_by: 'key' } },
    ]) {
      const report = await getWithBody('/v2/admin/analytics', h.t.adminKey, body);
      expect([report.status, report.body.usage_report?.group_by], JSON.stringify(body)).toEqual([200, 'key']);
      const tags = await getWithBody('/v2/admin/analytics/custom-tags', h.t.adminKey, {
        form: `start_date=${today}&end_date=${today}&aggregate_by=day`,
      });
      expect([tags.status, tags.body.custom_tag_usage_report?.aggregate_by]).toEqual([200, 'day']);
    }
  });

  it('regression: an empty body is no body: a GET (or POST) with a JSON or form Content-Type and no bytes answers as without one', async () => {
    const send = (method: string, path: string, key: string, type?: string) =>
      new Promise<{ status: number; body: Json }>((resolve, reject) => {
        const req = http.request(
          `${h.t.url}${path}`,
          {
            method,
            headers: {
              authorization: `DeepL-Auth-Key ${key}`,
              ...(type ? { 'content-type': type } : {}),
              'content-length': 0,
            },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null });
            });
          },
        );
        req.on('error', reject);
        req.end();
      });
    const routes: Array<[string, string, string]> = [
      ['GET', `/v2/admin/analytics?start_date=${today}&end_date=${today}`, h.t.adminKey],
      ['GET', `/v2/admin/analytics/custom-tags?start_date=${today}&end_date=${today}`, h.t.adminKey],
      ['GET', '/v2/admin/developer-keys', h.t.adminKey],
      ['GET', '/v2/usage', secret],
      ['GET', '/v2/languages', secret],
      ['GET', '/v3/languages', secret],
      ['GET', '/v2/glossaries', secret],
      ['GET', '/v3/glossaries', secret],
      ['GET', '/v2/glossary-language-pairs', secret],
      ['GET', '/v3/style_rules', secret],
      ['GET', '/v3/translation_memories', secret],
      // A POST without its parameters gets the same missing-parameter answer either way.
      ['POST', '/v2/translate', secret],
    ];
    for (const [method, path, key] of routes) {
      const plain = await send(method, path, key);
      for (const type of [
        'application/json',
        'application/json; charset=utf-8',
        'application/x-www-form-urlencoded',
      ]) {
        const typed = await send(method, path, key, type);
        expect([typed.status, typed.body], `${method} ${path} ${type}`).toEqual([plain.status, plain.body]);
      }
    }
  });
});
