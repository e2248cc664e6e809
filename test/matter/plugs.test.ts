/**
 * A `binary` light that is a plug is an On/Off Plug-in Unit (0x010A) for Matter controllers, a `binary`
 * lamp an On/Off Light (0x0100). Hearth knows a plug from its device (the driver's `DeviceInfo.plug`,
 * taken when the light is created), from the light's `plug` field, or from `plugins.matter.plugs`.
 */
import { rmSync } from 'node:fs';
import type { ClientNode } from '@matter/main';
import { OnOffClient } from '@matter/main/behaviors/on-off';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestController } from '../helpers/matter-controller.ts';
import { type Json, type MatterHarness, startMatter, until } from './harness.ts';

const ON_OFF_LIGHT = 0x0100;
const PLUG_IN_UNIT = 0x010a;

describe('matter bridge: plugs', () => {
  let h: MatterHarness;
  let controller: TestController;
  let peer: ClientNode;
  const ids: Record<string, string> = {};
  const part = (testid: string) => TestController.bridged(peer).get(ids[testid] as string);
  const add = async (body: Record<string, unknown>) => {
    const r = await h.call('POST', '/light', { vendor: 'test', ...body });
    expect(r.status).toBe(201);
    ids[body.testid as string] = r.body._id;
    return r.body as Json;
  };

  beforeAll(async () => {
    // `listed` is made first so its id can be put in the config: the hub is started again with it.
    const first = await startMatter();
    const listed = (
      await first.call('POST', '/light', { name: 'Listed', type: 'binary', vendor: 'test', testid: 'listed' })
    ).body as Json;
    ids.listed = listed._id;
    const { dataDir } = first.t;
    await first.t.stop({ keepData: true });
    h = await startMatter({
      dataDir,
      siteid: first.siteid,
      sitekey: first.sitekey,
      config: { plugs: [listed._id] },
    });
    // The driver knows the kettle's device as a plug (a Hue plug's archetype, a Zigbee Plug-in Unit …).
    h.driver().sink.reportDevices([{ protocolid: 'kettle', kind: 'binary', name: 'Kettle', plug: true }]);
  }, 90_000);

  afterAll(async () => {
    await controller?.close();
    const dir = h?.t.dataDir;
    await h?.t.stop();
    // The second hub was started on the first one's directory, which it does not remove itself.
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a light takes `plug` from its device, or from its body; a lamp keeps the spec shape', async () => {
    const kettle = await add({ name: 'Kettle', type: 'binary', testid: 'kettle' });
    expect(kettle.plug).toBe(true);
    const socket = await add({ name: 'Socket', type: 'binary', testid: 'socket', plug: true });
    expect(socket.plug).toBe(true);
    const lamp = await add({ name: 'Lamp', type: 'binary', testid: 'lamp' });
    expect(Object.keys(lamp)).not.toContain('plug');
    // A plug whose device says so, marked otherwise by the household: false wins and nothing is stored.
    h.driver().sink.reportDevices([{ protocolid: 'fan', kind: 'binary', plug: true }]);
    const fan = await add({ name: 'Fan', type: 'binary', testid: 'fan', plug: false });
    expect(Object.keys(fan)).not.toContain('plug');
    expect(
      (
        await h.call('POST', '/light', {
          name: 'X',
          type: 'binary',
          vendor: 'test',
          testid: 'x',
          plug: 'yes',
        })
      ).body,
    ).toMatchObject({
      message: 'plug must be true or false',
    });
  });

  it('a controller sees plugs as On/Off Plug-in Units and lamps as On/Off Lights', async () => {
    controller = await TestController.create({ label: 'Apple Home', vendorId: 0x1349 });
    const opened = (await h.t.admin('POST', `/admin/matter/${h.siteid}/window`)).body as Json;
    peer = await controller.commission(opened.port, opened.manualPairingCode);
    expect(part('kettle')?.deviceType).toBe(PLUG_IN_UNIT);
    expect(part('socket')?.deviceType).toBe(PLUG_IN_UNIT);
    expect(part('listed')?.deviceType).toBe(PLUG_IN_UNIT);
    expect(part('lamp')?.deviceType).toBe(ON_OFF_LIGHT);
    expect(part('fan')?.deviceType).toBe(ON_OFF_LIGHT);
  }, 60_000);

  it('a plug switches on and off through Hearth', async () => {
    const onOff = part('kettle')?.endpoint.commandsOf(OnOffClient);
    await onOff.on();
    await until(() => h.driver().levels.get('kettle')?.on === true, 'the kettle on');
    const light = (await h.call('GET', '/light')).body.find((l: Json) => l._id === ids.kettle);
    expect(light).toMatchObject({ on: true, bri: 255, plug: true });
    await onOff.off();
    await until(() => h.driver().levels.get('kettle')?.on === false, 'the kettle off');
    await part('lamp')?.endpoint.commandsOf(OnOffClient).on();
    await until(() => h.driver().levels.get('lamp')?.on === true, 'the lamp on');
  }, 30_000);

  it('`plug` changed on PUT /light changes the device type live', async () => {
    const r = await h.call('PUT', '/light', { _id: ids.socket, plug: false });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).not.toContain('plug');
    await until(() => part('socket')?.deviceType === ON_OFF_LIGHT, 'the socket an On/Off Light', 20_000);
    await h.call('PUT', '/light', { _id: ids.lamp, plug: true });
    await until(() => part('lamp')?.deviceType === PLUG_IN_UNIT, 'the lamp a Plug-in Unit', 20_000);
  }, 45_000);
});
