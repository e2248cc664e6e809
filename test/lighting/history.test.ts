/** History: merged light changes, sensor events, the API's filters and bounded pages, and a bounded, coalesced file. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LogStore } from '../../core/store/types.ts';
import { History, type HistoryEntry } from '../../plugins/lighting/history/history.ts';
import { type Json, type LightingHarness, startLighting } from './harness.ts';

function memoryLog(): LogStore<HistoryEntry> & { appends: number } {
  const items: HistoryEntry[] = [];
  return {
    items,
    appends: 0,
    async append(item) {
      this.appends++;
      items.push(item);
    },
    prune: () => 0,
    flush: async () => {},
  };
}

describe('History (unit, fake timers)', () => {
  it("keeps one entry, the last, for a light's changes less than 2 s apart", async () => {
    vi.useFakeTimers();
    try {
      const log = memoryLog();
      const h = new History(log);
      for (let bri = 1; bri <= 50; bri++) h.light('s', 'l1', { on: true, bri }, 1000 + bri);
      h.sensor('s', 'b1', 'press', 1100);
      expect(log.items.map((e) => e.kind)).toEqual(['sensor']);
      vi.advanceTimersByTime(2000);
      expect(log.items.at(-1)).toMatchObject({ kind: 'light', id: 'l1', bri: 50 });
      h.light('s', 'l1', { on: false, bri: 0 }, 5000);
      await h.flush(); // a stop writes what is pending
      expect(log.appends).toBe(3);
      expect(h.query('s', { limit: 10 }).map((v) => v.type)).toEqual(['light', 'light', 'sensor']);
      expect(h.query('other', { limit: 10 })).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('GET /history', () => {
  let h: LightingHarness;
  let desk: Json;
  let button: Json;

  beforeAll(async () => {
    h = await startLighting();
    desk = (await h.call('POST', '/light', { name: 'Desk', type: 'dimmable', vendor: 'test', testid: 'd1' }))
      .body;
    button = (
      await h.call('POST', '/sensor', { name: 'Switch', vendor: 'test', testid: 'b1', type: 'button' })
    ).body;
  });
  afterAll(() => h?.t.stop());

  it('shows light levels and sensor events, newest first, filtered by light, sensor and time, in bounded pages', async () => {
    await h.call('PUT', '/light/state', { _id: desk._id, on: true, bri: 120 });
    for (let i = 0; i < 5; i++) await h.call('POST', '/sensor/event', { _id: button._id, event: String(i) });
    await expect.poll(async () => (await h.call('GET', '/history')).body.length, { timeout: 5000 }).toBe(6);
    const all = (await h.call('GET', '/history')).body;
    expect(all.find((e: Json) => e.type === 'light')).toMatchObject({ _id: desk._id, on: true, bri: 120 });
    expect(all.filter((e: Json) => e.type === 'sensor').map((e: Json) => e.event)).toEqual([
      '4',
      '3',
      '2',
      '1',
      '0',
    ]);

    expect((await h.call('GET', `/history?light=${desk._id}`)).body).toHaveLength(1);
    expect(
      (await h.call('GET', `/history?sensor=${button._id}&limit=2`)).body.map((e: Json) => e.event),
    ).toEqual(['4', '3']);
    const page = (await h.call('GET', `/history?sensor=${button._id}&limit=2`)).body;
    const next = (await h.call('GET', `/history?sensor=${button._id}&limit=2&to=${page[1].at}`)).body;
    expect(next.every((e: Json) => Date.parse(e.at) < Date.parse(page[1].at))).toBe(true);
    expect(
      (await h.call('GET', `/history?from=${new Date(Date.now() + 60_000).toISOString()}`)).body,
    ).toEqual([]);
  });

  it('refuses bad filters with a 400 naming them, and unknown lights with 404', async () => {
    for (const [q, message] of [
      ['limit=0', /limit must be/],
      ['limit=1001', /limit must be/],
      ['from=yesterday', /from must be/],
      ['light=a&light=b', /light may be given once/],
      ['colour=red', /unknown parameter colour/],
    ] as const) {
      const res = await h.call('GET', `/history?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    expect((await h.call('GET', '/history?light=nope')).status).toBe(404);
  });

  it('is written to its own bounded file, not per event, and comes back after a restart', async () => {
    await h.t.stop({ keepData: true });
    h.t = await h.t.restart();
    const file = JSON.parse(await readFile(path.join(h.t.dataDir, 'lighting.history.json'), 'utf8'));
    expect(file.items.length).toBe(6);
  });
});
