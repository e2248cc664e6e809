/** The commissioning window closes by itself after `windowSeconds`, taking the codes with it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, type MatterHarness, startMatter, until } from './harness.ts';

describe('matter bridge: the commissioning window', () => {
  let h: MatterHarness;

  beforeAll(async () => {
    h = await startMatter({ config: { windowSeconds: 1 } });
  }, 60_000);

  afterAll(async () => {
    await h?.t.stop();
  });

  it('closes by itself: windowOpenUntil, the manual code and the QR payload go back to null', async () => {
    const opened = (await h.t.admin('POST', `/admin/matter/${h.siteid}/window`)).body as Json;
    expect(opened.manualPairingCode).toMatch(/^\d{11}$/);
    const until1s = Date.parse(opened.windowOpenUntil) - Date.now();
    expect(until1s).toBeLessThanOrEqual(1000);
    await until(async () => (await h.bridge()).windowOpenUntil === null, 'the window to close', 10_000);
    expect(await h.bridge()).toMatchObject({ manualPairingCode: null, qrPayload: null, commissioned: false });
  });

  it('DELETE /admin/matter/:site/window closes an open window at once', async () => {
    await h.t.admin('POST', `/admin/matter/${h.siteid}/window`);
    const closed = await h.t.admin('DELETE', `/admin/matter/${h.siteid}/window`);
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ windowOpenUntil: null, manualPairingCode: null });
  });
});
