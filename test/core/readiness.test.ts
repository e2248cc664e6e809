import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { readConfigSources, validateConfig } from '../../core/config/load.ts';
import { Hub } from '../../core/hub.ts';
import type { AnyPlugin } from '../../core/plugin/discover.ts';
import { definePlugin } from '../../core/plugin/types.ts';
import { startTestHub } from '../helpers/hub.ts';
import { kvPlugin } from './fixtures/kv-plugin.ts';

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** A plugin whose start waits for the test: its routes exist only once it is released. */
function slowPlugin(reached: (urls: Record<string, string>) => void, release: Promise<void>): AnyPlugin {
  return definePlugin({
    name: 'slow',
    version: '1.0.0',
    description: 'test plugin: starts when told',
    configSchema: { type: 'object', properties: {} },
    async start(ctx) {
      reached(Object.fromEntries(ctx.http.listeners().map((l) => [l.name, l.url])));
      await release;
      const main = ctx.http.router('main', { prefix: '/slow', errorBody: ({ message }) => ({ message }) });
      main.get('/thing', (k) => {
        k.body = { ok: true };
      });
      ctx.http.router('admin').get('/admin/slow', (k) => {
        k.body = { ok: true };
      });
      ctx.ws.route({ path: '/slow/ws', authenticate: () => ({}), onConnection: (s) => s.close() });
      return { stop() {} };
    },
  });
}

const key = 'readiness-test-admin-key-0123456789';

function hubWith(plugins: AnyPlugin[]): Hub {
  const dir = mkdtempSync(path.join(tmpdir(), 'hearth-ready-'));
  const overrides = {
    dataDir: dir,
    host: '127.0.0.1',
    log: { level: 'silent' },
    http: { main: { port: 0 }, admin: { port: 0 } },
    mqtt: { port: 0 },
    lifecycle: { pluginStartTimeoutMs: 60_000 },
  };
  const config = validateConfig(readConfigSources({ env: {}, overrides }), plugins);
  return new Hub({ config, plugins, adminKey: key, print: () => {} });
}

const upgradeStatus = (url: string): Promise<{ status: number; retryAfter: string | undefined }> =>
  new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.on('unexpected-response', (_req, res) => {
      resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined });
      ws.terminate();
    });
    ws.on('open', () => {
      resolve({ status: 101, retryAfter: undefined });
      ws.close();
    });
    ws.on('error', (err) => {
      if (!String(err.message).includes('Unexpected server response')) reject(err);
    });
  });

describe('readiness while the hub starts', () => {
  it('answers a plugin route that is not mounted yet with 503 + Retry-After (was 404 "No route"), and /health says starting', async () => {
    const release = deferred();
    const reached = deferred<Record<string, string>>();
    const hub = hubWith([slowPlugin(reached.resolve, release.promise)]);
    const started = hub.start();
    try {
      const urls = await reached.promise;
      const main = urls.main as string;
      const admin = urls.admin as string;

      const early = await fetch(`${main}/slow/thing`);
      expect(early.status).toBe(503);
      expect(early.headers.get('retry-after')).toBe('2');
      expect(await early.json()).toEqual({
        error: 'unavailable',
        message: 'Hearth is starting; retry in a moment',
      });
      const adminEarly = await fetch(`${admin}/admin/slow`, { headers: { authorization: `Bearer ${key}` } });
      expect(adminEarly.status).toBe(503);
      expect(adminEarly.headers.get('retry-after')).toBe('2');
      // Unauthenticated admin requests are still refused by the key check first.
      expect((await fetch(`${admin}/admin/slow`)).status).toBe(401);
      expect(await upgradeStatus(`${main.replace('http', 'ws')}/slow/ws`)).toEqual({
        status: 503,
        retryAfter: '2',
      });

      expect((await fetch(`${main}/livez`)).status).toBe(200);
      const health = await fetch(`${main}/health`);
      expect(health.status).toBe(503);
      expect(health.headers.get('retry-after')).toBe('2');
      expect(await health.json()).toMatchObject({ status: 'starting' });
      const ready = await fetch(`${main}/ready`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ status: 'starting' });

      release.resolve();
      await started;
      expect(await (await fetch(`${main}/slow/thing`)).json()).toEqual({ ok: true });
      // Once ready, an unknown path is a plain 404 again, in the owner's shape.
      const missing = await fetch(`${main}/slow/nothing`);
      expect(missing.status).toBe(404);
      expect(await missing.json()).toEqual({ message: 'No route for GET /slow/nothing' });
      expect((await fetch(`${main}/nothing`)).status).toBe(404);
      expect((await fetch(`${main}/health`)).status).toBe(200);
      expect(((await (await fetch(`${main}/ready`)).json()) as { status: string }).status).toBe('ready');
    } finally {
      release.resolve();
      await started.catch(() => {});
      await hub.stop();
    }
  });
});

describe('requests during a restore', () => {
  it('answer 503 with Retry-After (not 404), and a write meanwhile is refused, never acknowledged and dropped', async () => {
    const t = await startTestHub({ extraPlugins: [kvPlugin] });
    try {
      expect((await t.admin('PUT', '/admin/kv', { value: 'before' })).status).toBe(200);
      const swapping = deferred();
      const letGo = deferred();
      const reload = t.hub.reload(async () => {
        swapping.resolve();
        await letGo.promise;
      });
      await swapping.promise;

      const read = await fetch(`${t.adminUrl}/admin/kv`, {
        headers: { authorization: `Bearer ${t.adminKey}` },
      });
      expect(read.status).toBe(503);
      expect(read.headers.get('retry-after')).toBe('2');
      expect(await read.json()).toEqual({
        error: 'unavailable',
        message: 'Hearth is restoring a backup; retry in a moment',
      });
      const write = await t.admin('PUT', '/admin/kv', { value: 'during' });
      expect(write.status).toBe(503);
      expect((await t.admin('POST', '/admin/admin-key/rotate')).status).toBe(503);
      expect((await fetch(`${t.url}/anything`)).status).toBe(503);
      expect(await upgradeStatus(`${t.url.replace('http', 'ws')}/mqtt`)).toMatchObject({ status: 503 });
      // The probes say what is going on.
      expect((await fetch(`${t.url}/livez`)).status).toBe(200);
      const health = await fetch(`${t.url}/health`);
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({ status: 'restoring' });
      expect(((await (await fetch(`${t.url}/ready`)).json()) as { status: string }).status).toBe('restoring');
      // A second restore meanwhile is refused too.
      await expect(t.hub.reload(async () => {})).rejects.toMatchObject({ status: 503 });

      letGo.resolve();
      await reload;
      // The refused write left nothing behind; the hub serves again.
      expect((await t.admin('GET', '/admin/kv')).body).toEqual({ value: 'before' });
      expect((await t.admin('PUT', '/admin/kv', { value: 'after' })).status).toBe(200);
      expect((await fetch(`${t.url}/health`)).status).toBe(200);
    } finally {
      await t.stop();
    }
  });

  it('waits for a write already in flight before the plugins stop, so it is kept', async () => {
    const entered = deferred();
    const finish = deferred();
    const slowWriter = definePlugin({
      name: 'slowwriter',
      version: '1.0.0',
      description: 'test plugin: a write that takes its time',
      configSchema: { type: 'object', properties: {} },
      async start(ctx) {
        const doc = await ctx.store.open('data', { value: null as string | null });
        const r = ctx.http.router('admin');
        r.put('/admin/slow-write', async (k) => {
          entered.resolve();
          await finish.promise;
          await doc.commit((d) => {
            d.value = 'written';
          });
          k.body = { value: doc.data.value };
        });
        r.get('/admin/slow-write', (k) => {
          k.body = { value: doc.data.value };
        });
        return { stop: () => doc.flush() };
      },
    });
    const t = await startTestHub({ extraPlugins: [slowWriter] });
    try {
      const write = t.admin('PUT', '/admin/slow-write', { go: true });
      await entered.promise;
      let swapped = false;
      const reload = t.hub.reload(async () => {
        swapped = true;
      });
      await new Promise((r) => setTimeout(r, 50));
      // The restore has not stopped the plugins under the running request.
      expect(swapped).toBe(false);
      finish.resolve();
      expect(await write).toEqual({ status: 200, body: { value: 'written' } });
      await reload;
      expect(swapped).toBe(true);
      expect((await t.admin('GET', '/admin/slow-write')).body).toEqual({ value: 'written' });
    } finally {
      finish.resolve();
      await t.stop();
    }
  });
});
