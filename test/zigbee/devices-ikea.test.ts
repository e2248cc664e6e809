/**
 * IKEA TRÅDFRI devices from pairing to the site API: remotes bound and their battery reporting configured,
 * every button under zigbee2mqtt's action name (the arrows from IKEA's vendor Scenes commands), a sensor
 * action firing, and a white-spectrum bulb with its real colour temperature range.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  IKEA_IEEE,
  ikeaArrow,
  ikeaBattery,
  ikeaBulb,
  ikeaButton,
  ikeaOnOff,
  ikeaRemote,
  ikeaShortcut,
  ikeaStyrbar,
} from '../../scripts/simulators/znp-coordinator/vendor-devices/ikea.ts';
import type { Json } from '../mqtt/hub.ts';
import { type DeviceHub, pair, startDeviceHub, until } from './device-hub.ts';

let d: DeviceHub | null = null;
afterEach(async () => {
  await d?.stop();
  d = null;
});

const pid = (ieee: string) => `${ieee}/1`;

/** Every event the site recorded for a sensor, oldest first. */
async function eventsOf(hub: DeviceHub, sensorId: string, count: number): Promise<string[]> {
  return until(async () => {
    const list = ((await hub.h.site('GET', '/sensor/event')).body as Json[]).filter(
      (e) => e._id === sensorId,
    );
    return list.length >= count ? list.map((e) => e.event as string).reverse() : undefined;
  });
}

describe('IKEA devices', () => {
  it('the TRÅDFRI remote: every button by its zigbee2mqtt name, battery reporting, and an action on the bulb', async () => {
    d = await startDeviceHub([ikeaRemote(), ikeaBulb()]);
    await pair(d, ['ikeaRemote', 'ikeaBulb']);
    const twin = d.sim.coordinator.devices.get('ikeaRemote')!;
    expect([...twin.binds].sort((a, b) => a - b)).toEqual([0x0001, 0x0005, 0x0006, 0x0008]);
    expect(twin.reporting.has('1:33')).toBe(true);
    const remote = await d.sensor(pid(IKEA_IEEE.ikeaRemote));
    expect(remote).toMatchObject({ name: 'IKEA TRÅDFRI remote control (E1524/E1810)', type: 'button' });
    expect(remote.events).toEqual(
      expect.arrayContaining(['toggle', 'brightness_up_click', 'brightness_down_release', 'arrow_left_hold']),
    );

    const bulb = await until(async () =>
      ((await d!.h.site('GET', '/light')).body as Json[]).find((l) => l.zigbeeid === pid(IKEA_IEEE.ikeaBulb)),
    );
    expect(bulb).toMatchObject({
      name: 'IKEA TRÅDFRI bulb E27 white spectrum 980 lm (LED1545G12)',
      capabilities: { ct: { min: 250, max: 454 } },
    });
    await d.h.site('POST', '/sensor/action', {
      _id: remote._id,
      event: 'arrow_right_click',
      action: { type: 'light', _id: bulb._id, on: true, bri: 128 },
    });

    const presses = [
      ikeaButton('toggle'),
      ikeaButton('up_click'),
      ikeaButton('down_click'),
      ikeaButton('up_hold'),
      ikeaButton('up_release'),
      ikeaButton('down_hold'),
      ikeaButton('down_release'),
      ikeaArrow('left', 'click'),
      ikeaArrow('left', 'hold'),
      ikeaArrow('left', 'release'),
      ikeaArrow('right', 'hold'),
      ikeaArrow('right', 'release'),
      ikeaArrow('right', 'click'),
    ];
    for (const [i, p] of presses.entries()) {
      d.send('ikeaRemote', p, true);
      await eventsOf(d, remote._id, i + 1);
    }
    expect(await eventsOf(d, remote._id, presses.length)).toEqual([
      'toggle',
      'brightness_up_click',
      'brightness_down_click',
      'brightness_up_hold',
      'brightness_up_release',
      'brightness_down_hold',
      'brightness_down_release',
      'arrow_left_click',
      'arrow_left_hold',
      'arrow_left_release',
      'arrow_right_hold',
      'arrow_right_release',
      'arrow_right_click',
    ]);
    const bulbTwin = d.sim.coordinator.devices.get('ikeaBulb')!;
    await until(async () => (bulbTwin.attr(0x0008, 0) === 127 ? true : undefined));

    d.send('ikeaRemote', ikeaBattery(87));
    expect(await d.readings(pid(IKEA_IEEE.ikeaRemote), (r) => r.battery === 87)).toMatchObject({
      battery: 87,
      linkquality: 180,
    });
  });

  it('the on/off switch, STYRBAR and the shortcut button', async () => {
    d = await startDeviceHub([ikeaOnOff(), ikeaStyrbar(), ikeaShortcut()]);
    await pair(d, ['ikeaOnOff', 'ikeaStyrbar', 'ikeaShortcut']);
    const onOff = await d.sensor(pid(IKEA_IEEE.ikeaOnOff));
    expect(onOff).toMatchObject({
      name: 'IKEA TRÅDFRI on/off switch (E1743)',
      events: ['on', 'off', 'brightness_move_up', 'brightness_move_down', 'brightness_stop'],
    });
    for (const b of ['on', 'off', 'up_hold', 'up_release'] as const) d.send('ikeaOnOff', ikeaButton(b), true);
    expect(await eventsOf(d, onOff._id, 4)).toEqual(['on', 'off', 'brightness_move_up', 'brightness_stop']);

    const styrbar = await d.sensor(pid(IKEA_IEEE.ikeaStyrbar));
    expect(styrbar.name).toBe('IKEA STYRBAR remote control (E2001/E2002)');
    d.send('ikeaStyrbar', ikeaButton('on'), true);
    await eventsOf(d, styrbar._id, 1);
    d.send('ikeaStyrbar', ikeaArrow('right', 'hold'), true);
    await eventsOf(d, styrbar._id, 2);
    d.send('ikeaStyrbar', ikeaArrow('right', 'release'), true);
    expect(await eventsOf(d, styrbar._id, 3)).toEqual(['on', 'arrow_right_hold', 'arrow_right_release']);

    const shortcut = await d.sensor(pid(IKEA_IEEE.ikeaShortcut));
    expect(shortcut).toMatchObject({
      name: 'IKEA TRÅDFRI shortcut button (E1812)',
      events: ['on', 'off', 'brightness_move_up', 'brightness_stop'],
    });
    d.send('ikeaShortcut', ikeaButton('on'), true);
    d.send('ikeaShortcut', ikeaButton('up_hold'), true);
    d.send('ikeaShortcut', ikeaButton('up_release'), true);
    expect(await eventsOf(d, shortcut._id, 3)).toEqual(['on', 'brightness_move_up', 'brightness_stop']);
  });
});
