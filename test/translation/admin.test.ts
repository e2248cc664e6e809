import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeDeepl } from './fakes/deepl.ts';
import type { FakeUpstream } from './fakes/server.ts';
import { startTranslation, type TranslationHub, wrap } from './harness.ts';

let h: TranslationHub;
let upstream: FakeUpstream;
const today = new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  upstream = await fakeDeepl('k');
  h = await startTranslation({
    engines: [{ type: 'deepl', url: upstream.url, apiKey: 'k' }],
    translation: { analyticsPageSize: 2 },
  });
});
afterAll(async () => {
  await h.t.stop();
  await upstream.close();
});

const translate = (key: string, text: string, tag?: string) =>
  h.call('POST', '/v2/translate', {
    key,
    form: `target_lang=de&source_lang=en&text=${encodeURIComponent(text)}`,
    ...(tag ? { headers: { 'x-deepl-reporting-tag': tag } } : {}),
  });

describe('developer keys', () => {
  it('needs the admin key as DeepL-Auth-Key', async () => {
    expect((await h.call('GET', '/v2/admin/developer-keys')).status).toBe(403);
    expect((await h.call('GET', '/v2/admin/developer-keys', { key: 'not-admin' })).status).toBe(403);
    const { secret } = await h.createKey();
    expect((await h.call('GET', '/v2/admin/developer-keys', { key: secret })).status).toBe(403);
  });

  it('creates, lists, renames, limits and deactivates keys; the secret is shown once', async () => {
    const created = await h.admin('POST', '/v2/admin/developer-keys', { label: 'kitchen' });
    expect(created.status).toBe(200);
    expect(created.headers.get('x-trace-id')).toMatch(/^[0-9a-f]{32}$/);
    const { key_id: id, key: secret } = created.body;
    expect(created.body).toMatchObject({
      label: 'kitchen',
      is_deactivated: false,
      deactivated_time: null,
      usage_limits: { characters: null, speech_to_text_milliseconds: null },
    });
    expect(Date.parse(created.body.creation_time)).not.toBeNaN();
    const listed = await h.admin('GET', '/v2/admin/developer-keys');
    const entry = listed.body.find((k: { key_id: string }) => k.key_id === id);
    expect(entry.label).toBe('kitchen');
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    expect(JSON.stringify(h.t.logs)).not.toContain(secret);

    const renamed = await h.admin('PUT', '/v2/admin/developer-keys/label', { key_id: id, label: 'hall' });
    expect(renamed.body.label).toBe('hall');
    const limited = await h.admin('PUT', '/v2/admin/developer-keys/limits', {
      key_id: id,
      characters: 10,
      speech_to_text_milliseconds: 60000,
    });
    expect(limited.body.usage_limits).toEqual({ characters: 10, speech_to_text_milliseconds: 60000 });

    // A key at its limit gets 456 on every request; a request that would pass the limit too.
    expect((await translate(secret, '123456')).status).toBe(200);
    expect((await translate(secret, '12345')).status).toBe(456);
    expect((await translate(secret, '1234')).status).toBe(200);
    const at = await translate(secret, 'a');
    expect([at.status, at.body.message]).toEqual([456, expect.stringMatching(/limit/)]);
    // Usage and the language lists still answer (clients read their quota after a 456); only billed work is refused.
    for (const path of ['/v2/usage', '/v2/languages?type=target', '/v3/languages']) {
      const res = await h.call('GET', path, { key: secret });
      expect([res.status, res.headers.get('x-trace-id')], path).toEqual([200, expect.any(String)]);
    }
    expect(
      (await h.admin('PUT', '/v2/admin/developer-keys/limits', { key_id: id, characters: null })).status,
    ).toBe(200);
    expect((await translate(secret, 'again')).status).toBe(200);

    const off = await h.admin('PUT', '/v2/admin/developer-keys/deactivate', { key_id: id });
    expect(off.body.is_deactivated).toBe(true);
    expect(off.body.deactivated_time).toEqual(expect.any(String));
    expect((await translate(secret, 'x')).status).toBe(403);
    const again = await h.admin('PUT', '/v2/admin/developer-keys/deactivate', { key_id: id });
    expect(again.body.deactivated_time).toBe(off.body.deactivated_time); // permanent, not re-stamped
  });

  it('never lets concurrent requests take a key past its limit', async () => {
    const { secret, id } = await h.createKey('racing');
    await h.admin('PUT', '/v2/admin/developer-keys/limits', { key_id: id, characters: 10 });
    upstream.trouble({ delayMs: 300, times: 8, path: '/v2/translate' }); // all eight are in flight together
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => translate(secret, `r0${i}`)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 456, 456, 456, 456, 456]); // 3 × 3 characters fit into 10
    upstream.heal();
    const report = await h.admin(
      'GET',
      `/v2/admin/analytics?start_date=${today}&end_date=${today}&group_by=key`,
    );
    const row = report.body.usage_report.key_usages.find(
      (r: { api_key_label: string }) => r.api_key_label === 'racing',
    );
    expect(row.usage.total_characters).toBe(9);
  });

  it('answers bad admin input with 400 or 404 naming the parameter', async () => {
    const cases: Array<[string, string, unknown, number, RegExp]> = [
      ['PUT', '/v2/admin/developer-keys/deactivate', {}, 400, /'key_id' not specified/],
      ['PUT', '/v2/admin/developer-keys/deactivate', { key_id: 'nope' }, 404, /not found/],
      ['PUT', '/v2/admin/developer-keys/label', { key_id: 'nope', label: 'x' }, 404, /not found/],
      ['PUT', '/v2/admin/developer-keys/limits', { key_id: 'nope' }, 404, /not found/],
      ['POST', '/v2/admin/developer-keys', { label: 7 }, 400, /'label'/],
    ];
    for (const [method, path, body, status, message] of cases) {
      const res = await h.admin(method, path, body);
      expect([res.status, res.body.message]).toEqual([status, expect.stringMatching(message)]);
    }
    const { id } = await h.createKey('x');
    for (const characters of [-1, 1.5, 'ten']) {
      const res = await h.admin('PUT', '/v2/admin/developer-keys/limits', { key_id: id, characters });
      expect([res.status, res.body.message]).toEqual([400, "Value for 'characters' not supported."]);
    }
    for (const form of [`key_id=${id}&characters=`, `key_id=${id}&characters=1e3`]) {
      const res = await h.call('PUT', '/v2/admin/developer-keys/limits', { key: h.t.adminKey, form });
      expect([res.status, res.body.message], form).toEqual([400, "Value for 'characters' not supported."]);
    }
    const viaForm = await h.call('PUT', '/v2/admin/developer-keys/limits', {
      key: h.t.adminKey,
      form: `key_id=${id}&characters=500&speech_to_text_milliseconds=null`,
    });
    expect(viaForm.body.usage_limits).toEqual({ characters: 500, speech_to_text_milliseconds: null });
    const noLabel = await h.admin('PUT', '/v2/admin/developer-keys/label', { key_id: id });
    expect(noLabel.body.message).toMatch(/'label' not specified/);
  });
});

describe('usage analytics', () => {
  it('accounts every billed character per key, day and tag, also under concurrent requests', async () => {
    const a = await h.createKey('alpha');
    const b = await h.createKey('beta');
    const runs = Array.from({ length: 40 }, (_, i) =>
      translate(
        i % 2 ? a.secret : b.secret,
        `concurrent text ${i}`,
        i % 4 === 0 ? 'doorbell' : i % 4 === 1 ? 'oven' : undefined,
      ),
    );
    const results = await Promise.all(runs);
    expect(results.every((r) => r.status === 200)).toBe(true);
    const expected = (pick: (i: number) => boolean) =>
      Array.from({ length: 40 }, (_, i) => i)
        .filter(pick)
        .reduce((n, i) => n + `concurrent text ${i}`.length, 0);

    const report = await h.admin(
      'GET',
      `/v2/admin/analytics?start_date=${today}&end_date=${today}&group_by=key`,
    );
    expect(report.status).toBe(200);
    const rows = report.body.usage_report.key_usages as Array<{
      api_key: string;
      api_key_label: string;
      usage: { total_characters: number };
    }>;
    const alpha = rows.find((r) => r.api_key_label === 'alpha')!;
    expect(alpha.usage.total_characters).toBe(expected((i) => i % 2 === 1));
    expect(alpha.api_key).toBe(`${a.secret.slice(0, 4)}****${a.secret.slice(-4)}`);
    expect(rows.find((r) => r.api_key_label === 'beta')!.usage.total_characters).toBe(
      expected((i) => i % 2 === 0),
    );
    expect(report.body.usage_report).toMatchObject({
      group_by: 'key',
      start_date: `${today}T00:00:00`,
      end_date: `${today}T00:00:00`,
    });

    const byDay = await h.admin(
      'GET',
      `/v2/admin/analytics?start_date=${today}&end_date=${today}&group_by=key_and_day`,
    );
    const day = byDay.body.usage_report.key_and_day_usages.find(
      (r: { api_key_label: string }) => r.api_key_label === 'alpha',
    );
    expect(day).toMatchObject({
      usage_date: `${today}T00:00:00Z`,
      usage: { text_translation_characters: alpha.usage.total_characters },
    });
    const plain = await h.admin('GET', `/v2/admin/analytics?start_date=${today}&end_date=${today}`);
    expect(plain.body.usage_report.group_by).toBeUndefined();
    expect(plain.body.usage_report.total_usage.total_characters).toBeGreaterThanOrEqual(expected(() => true));

    const tags = await h.admin(
      'GET',
      `/v2/admin/analytics/custom-tags?start_date=${today}&end_date=${today}`,
    );
    expect(tags.body.custom_tag_usage_report).toMatchObject({ aggregate_by: 'period', next_page: null });
    const doorbell = tags.body.custom_tag_usage_report.usage.find(
      (u: { custom_tag: string }) => u.custom_tag === 'doorbell',
    );
    expect(doorbell.breakdown).toEqual({
      total_characters: expected((i) => i % 4 === 0),
      text_translation_characters: expected((i) => i % 4 === 0),
      text_improvement_characters: 0,
      speech_to_text_minutes: 0,
      speech_to_speech_minutes: 0,
    });
  });

  it('pages the custom-tag report and aggregates by day', async () => {
    const { secret } = await h.createKey('tags');
    for (const tag of ['t1', 't2', 't3']) expect((await translate(secret, 'tagged', tag)).status).toBe(200);
    const q = `start_date=${today}&end_date=${today}&aggregate_by=day`;
    const seen: string[] = [];
    let page: number | null = 0;
    while (page !== null) {
      const res = await h.admin('GET', `/v2/admin/analytics/custom-tags?${q}&page=${page}`);
      const report = res.body.custom_tag_usage_report;
      expect(report.usage.length).toBeLessThanOrEqual(2);
      for (const u of report.usage) {
        expect(u.usage_date).toBe(`${today}T00:00:00Z`);
        seen.push(u.custom_tag);
      }
      page = report.next_page;
    }
    expect(seen).toEqual(expect.arrayContaining(['t1', 't2', 't3']));
    expect(new Set(seen).size).toBe(seen.length);
  });

  it("answers the spec's 400 messages", async () => {
    const cases: Array<[string, string]> = [
      [
        `/v2/admin/analytics?start_date=2024-01-01&end_date=2025-01-02`,
        'Bad request. Reason: Date range cannot exceed 366 days',
      ],
      [
        `/v2/admin/analytics?start_date=${today}&end_date=${today}&group_by=day`,
        "Value for 'group_by' not supported. Allowed: '', 'key', 'key_and_day'.",
      ],
      [
        `/v2/admin/analytics/custom-tags?start_date=${today}&end_date=${today}&aggregate_by=key`,
        "Value for 'aggregate_by' not supported. Allowed: '', 'period', 'day'.",
      ],
      [
        `/v2/admin/analytics/custom-tags?start_date=2020-01-01&end_date=2021-06-01`,
        'Bad request. Reason: Date range cannot exceed 366 days',
      ],
      [`/v2/admin/analytics?end_date=${today}`, "Parameter 'start_date' not specified."],
      [
        `/v2/admin/analytics?start_date=2024-02-30&end_date=${today}`,
        "Value for 'start_date' not supported.",
      ],
      [
        `/v2/admin/analytics/custom-tags?start_date=${today}&end_date=${today}&page=-1`,
        "Value for 'page' not supported.",
      ],
    ];
    for (const [path, message] of cases) {
      const res = await h.admin('GET', path);
      expect([res.status, res.body]).toEqual([400, { message }]);
      expect(res.headers.get('x-trace-id')).toMatch(/^[0-9a-f]{32}$/);
    }
    const leap = await h.admin('GET', '/v2/admin/analytics?start_date=2024-01-01&end_date=2025-01-01');
    expect(leap.status).toBe(200); // exactly 366 days
  });

  it('refuses a reporting tag over 100 characters', async () => {
    const { secret } = await h.createKey('t');
    const res = await translate(secret, 'x', 'y'.repeat(101));
    expect([res.status, res.body.message]).toEqual([400, expect.stringContaining('X-DeepL-Reporting-Tag')]);
  });
});

describe('durability', () => {
  it('keeps keys, limits and usage across a restart, with nothing double counted on failover', async () => {
    const own = await fakeDeepl('k');
    const second = await fakeDeepl('k2');
    let hub = await startTranslation({
      engines: [
        { type: 'deepl', id: 'first', url: own.url, apiKey: 'k' },
        { type: 'deepl', id: 'second', url: second.url, apiKey: 'k2' },
      ],
    });
    const { secret, id } = await hub.createKey('durable');
    await hub.admin('PUT', '/v2/admin/developer-keys/limits', { key_id: id, characters: 1000 });
    const retired = await hub.createKey('retired');
    await hub.admin('PUT', '/v2/admin/developer-keys/deactivate', { key_id: retired.id });
    own.trouble({ status: 503, path: '/v2/translate' }); // every request fails over to "second"
    const texts = Array.from({ length: 10 }, (_, i) => `durable ${i}`);
    await Promise.all(
      texts.map((t) =>
        hub.call('POST', '/v2/translate', { key: secret, json: { text: [t], target_lang: 'DE' } }),
      ),
    );
    const billed = texts.join('').length;
    expect(second.calls('/v2/translate')).toHaveLength(10);
    expect((await hub.call('GET', '/v2/usage', { key: secret })).body.character_count).toBe(billed);
    hub = wrap(await hub.t.restart());
    const usage = await hub.call('GET', '/v2/usage', { key: secret });
    expect(usage.body).toMatchObject({ character_count: billed, character_limit: 1000 });
    expect((await hub.call('GET', '/v2/usage', { key: retired.secret })).status).toBe(403); // still deactivated
    const report = await hub.admin(
      'GET',
      `/v2/admin/analytics?start_date=${today}&end_date=${today}&group_by=key`,
    );
    expect(report.body.usage_report.key_usages[0].usage.total_characters).toBe(billed);
    await hub.t.stop();
    await own.close();
    await second.close();
  });
});
