/**
 * Both ways through a commissioned bridge: colour temperature, xy and hue/saturation from a controller reach
 * the test driver as Hearth commands with the exact conversions; a change made on the site API and a
 * remote's press reach the subscribed controller; lights added, renamed and removed in Hearth show in the
 * parts list without a restart; `reachable` follows the driver's link; a command to a light whose link is
 * down gets a Failure status and changes nothing.
 */

import type { ClientNode } from '@matter/main';
import { ColorControlClient } from '@matter/main/behaviors/color-control';
import { LevelControlClient } from '@matter/main/behaviors/level-control';
import { OnOffClient } from '@matter/main/behaviors/on-off';
import { SwitchClient } from '@matter/main/behaviors/switch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { briToLevel } from '../../plugins/matter/convert.ts';
import { TestController } from '../helpers/matter-controller.ts';
import { type Json, type MatterHarness, startMatter, until } from './harness.ts';

const OPTS = { optionsMask: {}, optionsOverride: {} };

describe('matter bridge: both ways', () => {
  let h: MatterHarness;
  let controller: TestController;
  let peer: ClientNode;
  const ids: Record<string, string> = {};
  const part = (id: string) => TestController.bridged(peer).get(ids[id] as string);

  beforeAll(async () => {
    h = await startMatter();
    const lights = [
      { name: 'Plug', type: 'binary', testid: 'plug' },
      { name: 'Hall', type: 'dimmable', testid: 'hall' },
      { name: 'Desk', type: 'dimmable', testid: 'desk', capabilities: { ct: { min: 153, max: 454 } } },
      {
        name: 'Strip',
        type: 'dimmable',
        testid: 'strip',
        capabilities: { ct: { min: 153, max: 500 }, xy: {} },
      },
    ];
    for (const l of lights) {
      const r = await h.call('POST', '/light', { ...l, vendor: 'test' });
      expect(r.status).toBe(201);
      ids[l.testid] = r.body._id;
    }
    const r = await h.call('POST', '/sensor', {
      name: 'Remote',
      vendor: 'test',
      testid: 'remote',
      type: 'switch',
      events: ['button1-single', 'button2-single', 'button2-long', 'button1-double'],
    });
    ids.remote = r.body._id;
    for (const [name, testid, type, events] of [
      ['Hall motion', 'pir', 'motion', ['motion', 'no_motion']],
      ['Front door', 'door', 'contact', ['open', 'close']],
    ] as const) {
      const s = await h.call('POST', '/sensor', { name, vendor: 'test', testid, type, events });
      ids[testid] = s.body._id;
    }
    controller = await TestController.create({ label: 'Apple Home', vendorId: 0x1349 });
    const opened = (await h.t.admin('POST', `/admin/matter/${h.siteid}/window`)).body as Json;
    peer = await controller.commission(opened.port, opened.manualPairingCode);
  }, 60_000);

  afterAll(async () => {
    await controller?.close();
    await h?.t.stop();
  });

  it('exposes each light by what it can show, and the remote as a Generic Switch', () => {
    expect(part('plug')?.deviceType).toBe(0x0100);
    expect(part('hall')?.deviceType).toBe(0x0101);
    expect(part('desk')?.deviceType).toBe(0x010c); // Color Temperature Light
    expect(part('strip')?.deviceType).toBe(0x010d); // Extended Color Light
    expect(part('remote')?.deviceType).toBe(0x000f); // Generic Switch
    expect(part('desk')?.endpoint.state.colorControl).toMatchObject({
      colorTempPhysicalMinMireds: 153,
      colorTempPhysicalMaxMireds: 454,
    });
  });

  it('colour temperature in mireds reaches the driver as ct', async () => {
    const desk = part('desk')?.endpoint;
    await desk.commandsOf(OnOffClient).on();
    await until(() => h.driver().levels.get('desk')?.on, 'desk on');
    await desk.commandsOf(ColorControlClient).moveToColorTemperature({
      colorTemperatureMireds: 370,
      transitionTime: 0,
      ...OPTS,
    });
    await until(() => (h.driver().levels.get('desk') as Json)?.ct === 370, 'desk at 370 mirek');
  });

  it('xy: CurrentX/CurrentY / 65536 reach the driver as xy, and the state reads back round(x·65536)', async () => {
    const strip = part('strip')?.endpoint;
    await strip.commandsOf(OnOffClient).on();
    await until(() => h.driver().levels.get('strip')?.on, 'strip on');
    const x = Math.round(0.3 * 65536);
    const y = Math.round(0.6 * 65536);
    await strip
      .commandsOf(ColorControlClient)
      .moveToColor({ colorX: x, colorY: y, transitionTime: 5, ...OPTS });
    const sent = await until(() => {
      const l = h.driver().levels.get('strip') as Json;
      return l?.xy ? l : undefined;
    }, 'strip xy');
    expect(sent.xy[0]).toBeCloseTo(0.3, 3);
    expect(sent.xy[1]).toBeCloseTo(0.6, 3);
    const last = h.driver().commands.at(-1) as Json;
    expect(last.level.transition).toBe(0.5);
    await until(() => strip.state.colorControl.currentX === x, 'CurrentX read back');
  });

  it('hue and saturation are turned into a colour by Hearth (drivers/lighting), once', async () => {
    const strip = part('strip')?.endpoint;
    // Matter hue 254 = 360°, 0 = red; full saturation.
    await strip.commandsOf(ColorControlClient).moveToHueAndSaturation({
      hue: 0,
      saturation: 254,
      transitionTime: 0,
      ...OPTS,
    });
    const l = await until(() => {
      const v = h.driver().levels.get('strip') as Json;
      return v?.xy && v.xy[0] > 0.6 ? v : undefined;
    }, 'a red xy');
    expect(l.xy[1]).toBeLessThan(0.35);
  });

  it('a change made on the site API reaches the subscribed controller', async () => {
    const hall = part('hall')?.endpoint;
    const r = await h.call('PUT', '/light/state', { _id: ids.hall, on: true, bri: 128 });
    expect(r.status).toBe(200);
    await until(
      () => hall.state.onOff.onOff === true && hall.state.levelControl.currentLevel === briToLevel(128),
      'level 127',
    );
  });

  it("a remote's press reaches the controller as InitialPress, ShortRelease, MultiPressComplete", async () => {
    const remote = part('remote')?.endpoint;
    const seen: string[] = [];
    const events = remote.eventsOf(SwitchClient);
    events.initialPress.on((e: Json) => seen.push(`initial:${e.newPosition}`));
    events.shortRelease.on((e: Json) => seen.push(`release:${e.previousPosition}`));
    events.multiPressComplete.on((e: Json) => seen.push(`complete:${e.totalNumberOfPressesCounted}`));
    events.longPress.on((e: Json) => seen.push(`long:${e.newPosition}`));
    h.driver().press('remote', 'button2-single');
    await until(() => seen.includes('complete:1'), 'the press events');
    expect(seen.slice(0, 3)).toEqual(['initial:2', 'release:2', 'complete:1']);
    h.driver().press('remote', 'button2-long');
    await until(() => seen.includes('long:2'), 'the long press');
  });

  it('a motion sensor is an Occupancy Sensor and a door contact a Contact Sensor, both following events', async () => {
    expect(part('pir')?.deviceType).toBe(0x0107);
    expect(part('door')?.deviceType).toBe(0x0015);
    h.driver().press('pir', 'motion');
    h.driver().press('door', 'open');
    const pir = part('pir')?.endpoint;
    const door = part('door')?.endpoint;
    await until(() => pir.state.occupancySensing.occupancy.occupied === true, 'occupied');
    await until(() => door.state.booleanState.stateValue === false, 'the door open (no contact)');
    h.driver().press('pir', 'no_motion');
    h.driver().press('door', 'close');
    await until(() => pir.state.occupancySensing.occupancy.occupied === false, 'vacant');
    await until(() => door.state.booleanState.stateValue === true, 'the door closed');
  });

  it('lights added, renamed and removed in Hearth appear, rename and disappear live', async () => {
    const r = await h.call('POST', '/light', {
      name: 'Porch',
      type: 'dimmable',
      vendor: 'test',
      testid: 'porch',
    });
    ids.porch = r.body._id;
    await until(() => part('porch'), 'Porch in the parts list');
    await h.call('PUT', '/light', { _id: ids.porch, name: 'Front porch' });
    await until(
      () => part('porch')?.endpoint.state.bridgedDeviceBasicInformation.nodeLabel === 'Front porch',
      'the new name',
    );
    expect((await h.call('DELETE', `/light/${ids.porch}`)).status).toBe(204);
    await until(() => part('porch') === undefined, 'Porch gone');
  });

  it('reachable follows the driver link; a command while it is down gets Failure and changes nothing', async () => {
    const hall = part('hall')?.endpoint;
    h.driver().setConnected(false);
    await until(() => hall.state.bridgedDeviceBasicInformation.reachable === false, 'unreachable');
    const before = h.driver().commands.length;
    await expect(
      hall.commandsOf(LevelControlClient).moveToLevelWithOnOff({ level: 10, transitionTime: null, ...OPTS }),
    ).rejects.toThrow(/Failure/);
    expect(h.driver().commands.length).toBe(before);
    expect(hall.state.levelControl.currentLevel).toBe(briToLevel(128));
    h.driver().setConnected(true);
    await until(() => hall.state.bridgedDeviceBasicInformation.reachable === true, 'reachable again');
    // A driver that refuses the command (a radio timeout): Failure too, and the level stays.
    h.driver().behaviour = 'fail';
    await expect(
      hall.commandsOf(LevelControlClient).moveToLevelWithOnOff({ level: 10, transitionTime: null, ...OPTS }),
    ).rejects.toThrow(/Failure/);
    h.driver().behaviour = 'report';
    expect(hall.state.levelControl.currentLevel).toBe(briToLevel(128));
    expect((await h.call('GET', '/light')).body.find((l: Json) => l._id === ids.hall)).toMatchObject({
      bri: 128,
    });
  });
});
