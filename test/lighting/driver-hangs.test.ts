/**
 * Drivers that stop answering (never a hang). Every driver call the plugin waits on is
 * bounded by `commandTimeoutMs`; a short one here keeps the test quick.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, type LightingHarness, startLighting } from './harness.ts';

let h: LightingHarness;
let lamp: Json;
const level = async (id: string) => {
  const l = (await h.call('GET', '/light')).body.find((x: Json) => x._id === id);
  return { on: l.on, bri: l.bri };
};

beforeAll(async () => {
  h = await startLighting({
    config: { plugins: { lighting: { reconcileMs: 100, commandTimeoutMs: 200 } } },
  });
  lamp = (await h.call('POST', '/light', { name: 'Lamp', type: 'dimmable', vendor: 'test', testid: 'L' }))
    .body;
});
afterAll(() => h.t.stop());

describe('a driver that never takes a command', () => {
  it('answers 504 {message}, stores nothing, and the light takes commands again', async () => {
    const release = h.driver.hold();
    const stuck = await h.call('PUT', '/light/state', { _id: lamp._id, on: true, bri: 90 });
    expect(stuck.status).toBe(504);
    expect(stuck.body).toEqual({
      message: `the test driver did not take the command to light ${lamp._id} within 200 ms`,
    });
    expect(await level(lamp._id)).toEqual({ on: false, bri: 0 });
    release();
    const ok = await h.call('PUT', '/light/state', { _id: lamp._id, on: true, bri: 91 });
    expect(ok.status).toBe(200);
    await expect.poll(() => level(lamp._id)).toEqual({ on: true, bri: 91 });
  });
});

describe('a driver whose reads never answer', () => {
  it('still reconciles a silent light: the commanded level is assumed', async () => {
    h.driver.behaviour = 'silent';
    h.driver.hangingReads.add('L');
    try {
      expect((await h.call('PUT', '/light/state', { _id: lamp._id, on: true, bri: 42 })).status).toBe(200);
      await expect.poll(() => level(lamp._id)).toEqual({ on: true, bri: 42 });
    } finally {
      h.driver.behaviour = 'report';
      h.driver.hangingReads.clear();
    }
  });

  it('goes on with the next light of a resync after one read hangs', async () => {
    const other = (
      await h.call('POST', '/light', { name: 'Other', type: 'dimmable', vendor: 'test', testid: 'O' })
    ).body;
    // The resync reads Lamp first (it hangs), then Other, which changed while the link was down.
    h.driver.hangingReads.add('L');
    try {
      h.driver.setConnected(false);
      h.driver.unseenChange('O', { on: true, bri: 17 });
      h.driver.setConnected(true);
      await expect.poll(() => level(other._id)).toEqual({ on: true, bri: 17 });
    } finally {
      h.driver.hangingReads.clear();
    }
  });
});

describe('pairing that fails', () => {
  it('answers 502 {message} without the driver error, which stays in the log', async () => {
    h.driver.discoverFails = true;
    try {
      const res = await h.call('POST', '/connection/discover', { _id: 'td', duration: 1 });
      expect(res.status).toBe(502);
      expect(res.body).toEqual({ message: 'the test driver td could not pair' });
      expect(JSON.stringify(h.t.logs)).toContain('10.0.0.7:443 refused pairing');
    } finally {
      h.driver.discoverFails = false;
    }
  });
});
