import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { fakeLibre } from './fakes/libretranslate.ts';
import type { FakeUpstream } from './fakes/server.ts';
import { startTranslation, type TranslationHub } from './harness.ts';

let h: TranslationHub;
let lt: FakeUpstream;
let siteid: string;
let sitekey: string;

beforeAll(async () => {
  lt = await fakeLibre();
  h = await startTranslation({
    plugins: ['lighting'],
    engines: [{ type: 'libretranslate', url: lt.url }],
    config: { mqtt: { allowAnonymous: true } },
  });
  const created = await h.t.admin('POST', '/admin/sites', { name: 'Announce test' });
  ({ siteid, sitekey } = created.body as { siteid: string; sitekey: string });
});
afterAll(async () => {
  await h.t.stop();
  await lt.close();
});

const announce = (key: string, body: unknown) => h.call('POST', `/api/site/${key}/announce`, { json: body });

describe('announcements', () => {
  it('translates once per language and publishes on MQTT and the site WebSocket', async () => {
    const client = await mqtt.connectAsync(h.t.mqttUrl, { reconnectPeriod: 0 });
    const received: Array<{ topic: string; payload: unknown }> = [];
    client.on('message', (topic, payload) =>
      received.push({ topic, payload: JSON.parse(payload.toString()) }),
    );
    await client.subscribeAsync(`hearth/${siteid}/announce/#`, { qos: 1 });
    const ws = new WebSocket(`${h.t.url.replace('http', 'ws')}/api/site/${sitekey}/ws`);
    const wsMessages: unknown[] = [];
    ws.on('message', (data) => wsMessages.push(JSON.parse(data.toString())));
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });

    const res = await announce(sitekey, {
      text: 'The washing machine has finished',
      source_lang: 'en',
      target_langs: ['de', 'fr', 'en-gb'],
    });
    expect(res.status).toBe(200);
    expect(res.body.failed).toEqual([]);
    expect(res.body.published).toEqual([
      {
        lang: 'de',
        text: 'THE WASHING MACHINE HAS FINISHED',
        detected_source_language: 'EN',
        topic: `hearth/${siteid}/announce/de`,
      },
      {
        lang: 'fr',
        text: 'THE WASHING MACHINE HAS FINISHED',
        detected_source_language: 'EN',
        topic: `hearth/${siteid}/announce/fr`,
      },
      {
        lang: 'en-gb',
        text: 'The washing machine has finished',
        detected_source_language: 'EN',
        topic: `hearth/${siteid}/announce/en-gb`,
      },
    ]);
    await expect.poll(() => received.length).toBe(3);
    expect(received).toContainEqual({
      topic: `hearth/${siteid}/announce/de`,
      payload: {
        text: 'THE WASHING MACHINE HAS FINISHED',
        lang: 'de',
        source_lang: 'EN',
        original: 'The washing machine has finished',
      },
    });
    await expect
      .poll(() => wsMessages.filter((m) => (m as { command?: string }).command === 'announce').length)
      .toBe(3);
    expect(lt.calls('/translate')).toHaveLength(2); // English needed no translation

    // The same announcement again comes from the cache.
    await announce(sitekey, {
      text: 'The washing machine has finished',
      source_lang: 'en',
      target_langs: ['de'],
    });
    expect(lt.calls('/translate')).toHaveLength(2);
    await expect.poll(() => received.length).toBe(4);
    ws.close();
    await client.endAsync();
  });

  it('lists languages that fail and still publishes the others', async () => {
    const res = await announce(sitekey, { text: 'Hello', source_lang: 'en', target_langs: ['de', 'ja'] });
    expect(res.status).toBe(200);
    expect(res.body.published.map((p: { lang: string }) => p.lang)).toEqual(['de']);
    expect(res.body.failed).toEqual([
      { lang: 'ja', status: 400, message: expect.stringContaining("into 'JA'") },
    ]);
  });

  it('answers 404 for an unknown site key and 400 for bad input', async () => {
    expect((await announce('not-a-site-key', { text: 'x', target_langs: ['de'] })).status).toBe(404);
    const cases: Array<[unknown, RegExp]> = [
      [{ target_langs: ['de'] }, /'text' not specified/],
      [{ text: 'x' }, /'target_langs' not specified/],
      [{ text: 'x', target_langs: ['xx'] }, /'target_langs' not supported/],
      [{ text: 'x', target_langs: ['de'], source_lang: 'zz' }, /'source_lang' not supported/],
      [{ text: 'x', target_langs: Array(21).fill('de') }, /at most 20/],
    ];
    for (const [body, message] of cases) {
      const res = await announce(sitekey, body);
      expect([res.status, res.body.message]).toEqual([400, expect.stringMatching(message)]);
    }
    expect(JSON.stringify(h.t.logs)).not.toContain(sitekey);
  });
});

describe('announcements with the MQTT broker down', () => {
  it('gh-audit: answer within the confirmation bound instead of hanging, after the site WebSocket got them', async () => {
    const upstream = await fakeLibre();
    // An external broker nobody listens on: mqtt.js queues QoS 1 publishes until it reconnects.
    const hub = await startTranslation({
      plugins: ['lighting'],
      engines: [{ type: 'libretranslate', url: upstream.url }],
      config: { mqtt: { external: { url: 'mqtt://127.0.0.1:9' } } },
    });
    try {
      const created = await hub.t.admin('POST', '/admin/sites', { name: 'Broker down' });
      const { sitekey: key } = created.body as { sitekey: string };
      const ws = new WebSocket(`${hub.t.url.replace('http', 'ws')}/api/site/${key}/ws`);
      const wsMessages: Array<{ command?: string }> = [];
      ws.on('message', (data) => wsMessages.push(JSON.parse(data.toString())));
      await new Promise((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', reject);
      });
      // A hang would end in the test's timeout; the answer itself shows the bound was applied.
      const res = await hub.call('POST', `/api/site/${key}/announce`, {
        json: { text: 'Dinner is ready', source_lang: 'en', target_langs: ['de'] },
      });
      expect([res.status, res.headers.get('retry-after')]).toEqual([503, '1']);
      expect(res.body.message).toMatch(/MQTT broker did not take .* site WebSocket only/);
      expect(res.body.message).not.toContain('127.0.0.1:9');
      await expect.poll(() => wsMessages.filter((m) => m.command === 'announce').length).toBe(1);
      ws.close();
    } finally {
      await hub.t.stop();
      await upstream.close();
    }
  });
});
