/**
 * Ids that are names of `Object.prototype` (`__proto__`, `constructor`, `toString`, …) must be ordinary
 * unknown ids everywhere the translation plugin takes one: never found, never written through, and never
 * able to pollute the process so that other plugins fail.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from '../auth/helpers.ts';
import { fakeDeepl } from './fakes/deepl.ts';
import type { FakeUpstream } from './fakes/server.ts';
import { startTranslation, type TranslationHub, wrap } from './harness.ts';

const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];

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

/** Properties a polluted `Object.prototype` would show on every plain object. */
function pollution(): string[] {
  const plain: Record<string, unknown> = {};
  const inherited = ['deactivated', 'label', 'limits', 'hash', 'masked', 'created'].filter(
    (name) => name in plain,
  );
  return [...Object.keys(Object.prototype), ...inherited];
}

describe('prototype names as ids', () => {
  it('regression: key_id "__proto__" on deactivate/label answers 404 and leaves other plugins working', async () => {
    const routes = [
      ['deactivate', {}],
      ['label', { label: 'polluted' }],
      ['limits', { characters: 5 }],
    ] as const;
    for (const id of PROTOTYPE_NAMES) {
      for (const [route, extra] of routes) {
        const json = await h.admin('PUT', `/v2/admin/developer-keys/${route}`, { key_id: id, ...extra });
        expect([json.status, json.body], `${route} ${id} (JSON)`).toEqual([
          404,
          { message: 'Developer key not found.' },
        ]);
        const form = new URLSearchParams({ key_id: id, ...extra } as Record<string, string>).toString();
        const formed = await h.call('PUT', `/v2/admin/developer-keys/${route}`, { key: h.t.adminKey, form });
        expect([formed.status, formed.body], `${route} ${id} (form)`).toEqual([
          404,
          { message: 'Developer key not found.' },
        ]);
      }
    }
    expect(pollution()).toEqual([]);

    // The admin POSTs of the other plugins still work (they failed until a restart).
    const site = await h.t.admin('POST', '/admin/sites', { name: 'After the probe' });
    expect(site.status, JSON.stringify(site.body)).toBe(201);
    await adminClient(h.t, { client_name: 'after the probe' });

    // And the keys that do exist are untouched.
    const listed = await h.admin('GET', '/v2/admin/developer-keys');
    expect(listed.status).toBe(200);
    for (const key of listed.body) expect(key.label).not.toBe('polluted');
  });

  it('treats prototype names as unknown credentials and site keys', async () => {
    for (const id of PROTOTYPE_NAMES) {
      for (const path of ['/v2/usage', '/v2/languages']) {
        const res = await h.call('GET', path, { key: id });
        expect([res.status, res.body], `${path} with key ${id}`).toEqual([403, { message: 'Forbidden' }]);
      }
      const res = await h.call('POST', `/api/site/${encodeURIComponent(id)}/announce`, {
        json: { text: 'Hello', target_langs: ['DE'] },
      });
      expect(res.status, `announce with site key ${id}`).toBe(404);
    }
    expect(pollution()).toEqual([]);
  });

  it('counts reporting tags named like prototype properties as ordinary tags', async () => {
    const { secret, id } = await h.createKey('tags');
    for (const tag of PROTOTYPE_NAMES) {
      const res = await h.call('POST', '/v2/translate', {
        key: secret,
        form: 'target_lang=de&source_lang=en&text=hello',
        headers: { 'x-deepl-reporting-tag': tag },
      });
      expect(res.status, tag).toBe(200);
    }
    // A second request per tag adds to the same bucket (an inherited value would break the sum).
    for (const tag of PROTOTYPE_NAMES) {
      await h.call('POST', '/v2/translate', {
        key: secret,
        form: 'target_lang=de&source_lang=en&text=hi',
        headers: { 'x-deepl-reporting-tag': tag },
      });
    }
    const day = new Date().toISOString().slice(0, 10);
    const report = await h.admin('GET', `/v2/admin/analytics/custom-tags?start_date=${day}&end_date=${day}`);
    expect(report.status).toBe(200);
    const usage = await h.call('GET', '/v2/usage', { key: secret });
    expect(usage.body.character_count).toBe(PROTOTYPE_NAMES.length * 7);
    const counted = new Map<string, number>();
    // The page size is 100: every tag of this hub fits on page 0.
    for (const row of report.body.custom_tag_usage_report.usage)
      counted.set(row.custom_tag, row.breakdown.total_characters);
    for (const tag of PROTOTYPE_NAMES) expect(counted.get(tag), tag).toBe(7);
    expect(pollution()).toEqual([]);

    // The tags survive a restart as ordinary keys of the usage file.
    h = wrap(await h.t.restart());
    const again = await h.admin('GET', `/v2/admin/analytics/custom-tags?start_date=${day}&end_date=${day}`);
    const tags = again.body.custom_tag_usage_report.usage.map((r: { custom_tag: string }) => r.custom_tag);
    expect(tags).toEqual(expect.arrayContaining(PROTOTYPE_NAMES));
    expect(
      (await h.admin('GET', '/v2/admin/developer-keys')).body.map((k: { key_id: string }) => k.key_id),
    ).toContain(id);
  });
});
