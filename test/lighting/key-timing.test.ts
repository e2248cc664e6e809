/**
 * A wrong, a retired and an unknown site key must not be told apart, neither by the answer's bytes nor by
 * how long it takes. The second half measures wall-clock time, so this file runs in the serial `live`
 * project of vitest.config.ts, after every other test has finished.
 */
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, type LightingHarness, startLighting } from './harness.ts';

let h: LightingHarness;

beforeAll(async () => {
  h = await startLighting();
});
afterAll(() => h.t.stop());

describe('unknown site keys', () => {
  it('answers a wrong, a retired and an unknown key with the same bytes and in the same time', async () => {
    // A second site whose old key was rotated away: the most realistic "wrong key".
    const other = (await h.t.admin('POST', '/admin/sites', { name: 'Other' })).body as Json;
    await h.t.admin('POST', `/admin/sites/${other.siteid}/rotate-key`);
    const keys = {
      wrong: `${h.sitekey.slice(0, -1)}${h.sitekey.endsWith('A') ? 'B' : 'A'}`,
      retired: other.sitekey as string,
      unknown: 'Z'.repeat(24),
      short: 'x',
    };
    const answer = async (key: string) => {
      const res = await fetch(`${h.t.url}/api/site/${key}/light`);
      const headers = [...res.headers].filter(([k]) => k !== 'date' && k !== 'x-request-id');
      return { status: res.status, headers, body: await res.text() };
    };
    const first = await answer(keys.unknown);
    expect(first.status).toBe(404);
    for (const key of Object.values(keys)) expect(await answer(key)).toEqual(first);

    // Every key is hashed and looked up the same way, so no kind of key answers faster. Interleaved rounds
    // share whatever load the machine has; the medians must agree within a quarter (plus timer noise).
    const times: Record<string, number[]> = { wrong: [], retired: [], unknown: [], short: [] };
    const kinds = Object.entries(keys);
    for (let i = 0; i < 200; i++) {
      // A different order each round, so no kind always pays for coming first.
      for (const [kind, key] of kinds.sort(() => Math.random() - 0.5)) {
        const t0 = performance.now();
        await (await fetch(`${h.t.url}/api/site/${key}/light`)).arrayBuffer();
        times[kind]!.push(performance.now() - t0);
      }
    }
    const medians = Object.values(times).map((xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!);
    const spread = Math.max(...medians) - Math.min(...medians);
    expect(spread, `medians ${medians.map((m) => m.toFixed(3)).join(' / ')} ms`).toBeLessThan(
      0.25 * Math.max(...medians) + 0.1,
    );
  });
});
