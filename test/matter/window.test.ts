/** The commissioning window closes by itself after `windowSeconds`, taking the codes with it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../core/plugin/types.ts';
import { matterCommands } from '../../plugins/matter/commands.ts';
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

  it('hearth matter pair prints the QR code, its payload and the grouped manual code; status lists the bridge', async () => {
    const lines: string[] = [];
    const errors: string[] = [];
    const io: CliIo = {
      admin: { request: (m, p, b) => h.t.admin(m, p, b) },
      out: (l) => lines.push(l),
      err: (l) => errors.push(l),
    };
    const pair = matterCommands.find((c) => c.name === 'matter pair');
    const status = matterCommands.find((c) => c.name === 'matter status');
    expect(await pair?.run({ positionals: [h.siteid], values: {} }, io)).toBe(0);
    const b = await h.bridge();
    const code = b.manualPairingCode as string;
    expect(lines.join('\n')).toContain(`${code.slice(0, 4)}-${code.slice(4, 7)}-${code.slice(7)}`);
    expect(lines.join('\n')).toContain(b.qrPayload);
    expect(lines[0]).toMatch(/[█▀▄]/);
    lines.length = 0;
    expect(await status?.run({ positionals: [], values: {} }, io)).toBe(0);
    expect(lines[0]).toContain(`site ${h.siteid}`);
    expect(await pair?.run({ positionals: ['nosuchsite'], values: {} }, io)).toBe(1);
    expect(errors[0]).toMatch(/HTTP 404/);
    // The codes carry the passcode: no log line ever holds one.
    const log = JSON.stringify(h.t.logs);
    expect(log).not.toContain(code);
    expect(log).not.toContain(b.qrPayload);
  });

  it('DELETE /admin/matter/:site/window closes an open window at once', async () => {
    await h.t.admin('POST', `/admin/matter/${h.siteid}/window`);
    const closed = await h.t.admin('DELETE', `/admin/matter/${h.siteid}/window`);
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ windowOpenUntil: null, manualPairingCode: null });
  });
});
