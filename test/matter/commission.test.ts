/**
 * A matter.js controller commissions Hearth's bridge on loopback with its manual code, reads the parts
 * list and switches and dims lights: the commands reach the test driver as Hearth commands.
 */

import { LevelControlClient } from '@matter/main/behaviors/level-control';
import { OnOffClient } from '@matter/main/behaviors/on-off';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestController } from '../helpers/matter-controller.ts';
import { type Json, type MatterHarness, startMatter, until } from './harness.ts';

describe('matter bridge: commissioning and control', () => {
  let h: MatterHarness;
  let controller: TestController;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    h = await startMatter();
    for (const [name, type, vendorid] of [
      ['Desk', 'dimmable', 'desk'],
      ['Lamp', 'binary', 'lamp'],
    ] as const) {
      const r = await h.call('POST', '/light', { name, type, vendor: 'test', testid: vendorid });
      expect(r.status).toBe(201);
      ids[vendorid] = r.body._id;
    }
    controller = await TestController.create({ label: 'Home Assistant', vendorId: 0x134b });
  }, 30_000);

  afterAll(async () => {
    await controller?.close();
    await h?.t.stop();
  });

  it('lists the bridge without codes until a window is opened', async () => {
    const b = await h.bridge();
    expect(b).toMatchObject({
      site: h.siteid,
      commissioned: false,
      manualPairingCode: null,
      qrPayload: null,
      windowOpenUntil: null,
      fabrics: [],
    });
    expect(b.port).toBeGreaterThan(0);
  });

  it('opens a window: 11-digit manual code, MT: QR payload, ISO close time', async () => {
    const r = await h.t.admin('POST', `/admin/matter/${h.siteid}/window`);
    expect(r.status).toBe(200);
    const b = r.body as Json;
    expect(b.manualPairingCode).toMatch(/^\d{11}$/);
    expect(b.qrPayload).toMatch(/^MT:[0-9A-Z.-]+$/);
    expect(Date.parse(b.windowOpenUntil)).toBeGreaterThan(Date.now());
  });

  it('a controller commissions it with the manual code and reads the parts list', async () => {
    const b = await h.bridge();
    const peer = await controller.commission(b.port, b.manualPairingCode);
    const parts = TestController.bridged(peer);
    expect(parts.get(ids.desk as string)?.deviceType).toBe(0x0101); // Dimmable Light
    expect(parts.get(ids.lamp as string)?.deviceType).toBe(0x0100); // On/Off Light
    expect(parts.get(ids.desk as string)?.endpoint.state.bridgedDeviceBasicInformation.nodeLabel).toBe(
      'Desk',
    );
    const after = await h.bridge();
    expect(after).toMatchObject({ commissioned: true, windowOpenUntil: null, manualPairingCode: null });
    expect(after.fabrics).toEqual([{ fabricIndex: 1, vendorId: 0x134b, label: 'Home Assistant' }]);
  }, 30_000);

  it('On and MoveToLevelWithOnOff become Hearth commands (level 254 → bri 255, 1 → 1)', async () => {
    const peer = [...controller.node.peers][0] as Json;
    const parts = TestController.bridged(peer);
    const lamp = parts.get(ids.lamp as string)?.endpoint;
    await lamp.commandsOf(OnOffClient).on();
    await until(() => h.driver().levels.get('lamp')?.on === true, 'the lamp on');
    const desk = parts.get(ids.desk as string)?.endpoint;
    const levelCmd = desk.commandsOf(LevelControlClient);
    const opts = { transitionTime: null, optionsMask: {}, optionsOverride: {} };
    await levelCmd.moveToLevelWithOnOff({ level: 254, ...opts });
    await until(() => h.driver().levels.get('desk')?.bri === 255, 'desk at 255');
    await levelCmd.moveToLevelWithOnOff({ level: 1, ...opts });
    await until(() => h.driver().levels.get('desk')?.bri === 1, 'desk at 1');
    const light = (await h.call('GET', '/light')).body.find((l: Json) => l._id === ids.desk);
    expect(light).toMatchObject({ on: true, bri: 1 });
    await lamp.commandsOf(OnOffClient).off();
    await until(() => h.driver().levels.get('lamp')?.on === false, 'the lamp off');
  }, 30_000);
});
