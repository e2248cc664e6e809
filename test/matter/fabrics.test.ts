/**
 * Commissioning's edges: a wrong code and a closed window are refused and leave the bridge as it was, a
 * second ecosystem commissions through a new window (multi-admin), a fabric is removed on the admin API,
 * the window closes by itself, and after a hub restart the fabrics, the passcode and control are intact.
 */
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { OnOffClient } from '@matter/main/behaviors/on-off';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestController } from '../helpers/matter-controller.ts';
import { type Json, type MatterHarness, startMatter, until } from './harness.ts';

// A fixed port: controllers find the bridge again after the restart where it was (no mDNS on loopback).
const PORT = 20000 + (process.pid % 20000);

describe('matter bridge: fabrics, windows and restart', () => {
  let h: MatterHarness & { sitekey: string };
  let apple: TestController;
  let google: TestController;
  let lampId: string;
  let firstCode: string;

  const open = async () => (await h.t.admin('POST', `/admin/matter/${h.siteid}/window`)).body as Json;

  beforeAll(async () => {
    h = await startMatter({ config: { port: PORT, windowSeconds: 900 } });
    const r = await h.call('POST', '/light', {
      name: 'Lamp',
      type: 'binary',
      vendor: 'test',
      testid: 'lamp',
    });
    lampId = r.body._id;
    apple = await TestController.create({ label: 'Apple Home', vendorId: 0x1349 });
    google = await TestController.create({ label: 'Google Home', vendorId: 0x6006 });
  }, 60_000);

  afterAll(async () => {
    await apple?.close();
    await google?.close();
    const dir = h?.t.dataDir;
    await h?.t.stop({ keepData: true });
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a wrong code is refused, the bridge stays uncommissioned, the right code then works', async () => {
    const b = await open();
    firstCode = b.manualPairingCode;
    // Same discriminator, another passcode: the code's check digit is recomputed so only PASE can refuse it.
    const wrong = wrongCode(b.manualPairingCode);
    await expect(apple.commission(PORT, wrong)).rejects.toThrow();
    expect(await h.bridge()).toMatchObject({ commissioned: false, fabrics: [] });
    expect((await h.bridge()).windowOpenUntil).not.toBeNull();
    await apple.commission(PORT, firstCode);
    expect((await h.bridge()).fabrics).toEqual([{ fabricIndex: 1, vendorId: 0x1349, label: 'Apple Home' }]);
  }, 90_000);

  it('with the window closed a controller cannot commission, even with the right code', async () => {
    const b = await h.bridge();
    expect(b).toMatchObject({ windowOpenUntil: null, manualPairingCode: null, qrPayload: null });
    await expect(google.commission(PORT, firstCode)).rejects.toThrow();
    expect((await h.bridge()).fabrics).toHaveLength(1);
  }, 90_000);

  it('a second ecosystem commissions through a new window: two fabrics, vendor and label each', async () => {
    const b = await open();
    expect(b.manualPairingCode).toBe(firstCode);
    await google.commission(PORT, b.manualPairingCode);
    const after = await h.bridge();
    expect(after.fabrics).toEqual([
      { fabricIndex: 1, vendorId: 0x1349, label: 'Apple Home' },
      { fabricIndex: 2, vendorId: 0x6006, label: 'Google Home' },
    ]);
    expect(after.windowOpenUntil).toBeNull();
  }, 90_000);

  it('DELETE /admin/matter/:site/fabrics/:fabricIndex removes one; bad and unknown indexes are 400 and 404', async () => {
    expect((await h.t.admin('DELETE', `/admin/matter/${h.siteid}/fabrics/0`)).status).toBe(400);
    expect((await h.t.admin('DELETE', `/admin/matter/${h.siteid}/fabrics/x`)).status).toBe(400);
    expect((await h.t.admin('DELETE', `/admin/matter/${h.siteid}/fabrics/9`)).status).toBe(404);
    expect((await h.t.admin('DELETE', `/admin/matter/nosuchsite/fabrics/1`)).status).toBe(404);
    expect((await h.t.admin('POST', `/admin/matter/nosuchsite/window`)).status).toBe(404);
    expect((await h.t.admin('DELETE', `/admin/matter/${h.siteid}/fabrics/1`)).status).toBe(204);
    expect((await h.bridge()).fabrics).toEqual([{ fabricIndex: 2, vendorId: 0x6006, label: 'Google Home' }]);
  });

  it('after a hub restart: same fabrics, same passcode, no passcode in the node file, and control works', async () => {
    const { dataDir } = h.t;
    const { siteid, sitekey } = h;
    await h.t.stop({ keepData: true });
    h = await startMatter({ dataDir, siteid, sitekey, config: { port: PORT, windowSeconds: 900 } });
    const b = await h.bridge();
    expect(b).toMatchObject({ commissioned: true, port: PORT, windowOpenUntil: null });
    expect(b.fabrics).toEqual([{ fabricIndex: 2, vendorId: 0x6006, label: 'Google Home' }]);
    const node = readFileSync(path.join(dataDir, `matter.node-${siteid}.json`), 'utf8');
    const passcode = String(
      (Number(firstCode.slice(1, 6)) & 0x3fff) + Number(firstCode.slice(6, 10)) * 16384,
    );
    expect(node).not.toContain(`"passcode"`);
    expect(node).not.toContain(passcode);
    expect((await open()).manualPairingCode).toBe(firstCode);
    await h.t.admin('DELETE', `/admin/matter/${h.siteid}/window`);
    const peer = [...google.node.peers].find((p) => p.lifecycle.isCommissioned) as Json;
    const lamp = TestController.bridged(peer).get(lampId)?.endpoint;
    await until(
      async () => {
        await lamp.commandsOf(OnOffClient).on();
        return true;
      },
      'a command after the restart',
      60_000,
    );
    await until(() => h.driver().levels.get('lamp')?.on === true, 'the lamp on');
  }, 120_000);
});

/** Matter 1.3 §5.1.4.1: the manual code's digits 2-10 carry the passcode; the last digit is a Verhoeff check. */
function wrongCode(code: string): string {
  const body = code.slice(0, 10);
  const digit = (Number(body[9]) + 1) % 10;
  const changed = body.slice(0, 9) + String(digit);
  return changed + verhoeff(changed);
}

const D = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
  [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
  [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
  [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
  [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
  [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
  [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
  [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
  [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
];
const P = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
  [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
  [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
  [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
  [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
  [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
  [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
];
const INV = [0, 4, 3, 2, 1, 5, 6, 7, 8, 9];
function verhoeff(digits: string): string {
  let c = 0;
  const rev = digits.split('').reverse();
  for (let i = 0; i < rev.length; i++)
    c = (D[c] as number[])[(P[(i + 1) % 8] as number[])[Number(rev[i])] as number] as number;
  return String(INV[c]);
}
