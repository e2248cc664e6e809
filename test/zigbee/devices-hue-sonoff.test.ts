/**
 * Philips Hue devices paired straight to the stick, and Sonoff SNZB devices, from pairing to the site API:
 * zigbee2mqtt's action names from the Philips cluster and standard clusters, readings, a sensor action.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  dialNotification,
  dialTurn,
  HUE_IEEE,
  hueBattery,
  hueBulbB,
  hueButton,
  hueDimmer2,
  hueMotion,
  hueMotionReports,
  hueTapDial,
} from '../../scripts/simulators/znp-coordinator/vendor-devices/hue.ts';
import {
  SONOFF_IEEE,
  sonoffBattery,
  sonoffButton,
  sonoffClimate,
  sonoffClimateReports,
  sonoffContact,
  sonoffMotion,
  sonoffPress,
} from '../../scripts/simulators/znp-coordinator/vendor-devices/sonoff.ts';
import type { Json } from '../mqtt/hub.ts';
import { type DeviceHub, pair, startDeviceHub, until } from './device-hub.ts';

let d: DeviceHub | null = null;
afterEach(async () => {
  await d?.stop();
  d = null;
});

async function eventsOf(hub: DeviceHub, sensorId: string, count: number): Promise<string[]> {
  return until(async () => {
    const list = ((await hub.h.site('GET', '/sensor/event')).body as Json[]).filter(
      (e) => e._id === sensorId,
    );
    return list.length >= count ? list.map((e) => e.event as string).reverse() : undefined;
  });
}

describe('Philips Hue devices', () => {
  it('the dimmer switch and the tap dial report their buttons from the Philips cluster; the motion sensor its occupancy, illuminance and temperature, and turns a bulb of gamut B on', async () => {
    d = await startDeviceHub([hueDimmer2(), hueTapDial(), hueMotion(), hueBulbB()]);
    await pair(d, ['hueDimmer2', 'hueTapDial', 'hueMotion', 'hueBulbB']);
    const dimmerTwin = d.sim.coordinator.devices.get('hueDimmer2')!;
    expect(dimmerTwin.binds.has(0xfc00)).toBe(true);
    expect(dimmerTwin.reporting.has('1:33')).toBe(true);

    const dimmer = await d.sensor(`${HUE_IEEE.hueDimmer2}/1`);
    expect(dimmer.name).toBe('Philips Hue dimmer switch (2021) (RWL022)');
    d.send('hueDimmer2', hueButton(1, 'press'), true);
    d.send('hueDimmer2', hueButton(1, 'press_release'), true);
    d.send('hueDimmer2', hueButton(3, 'hold'), true);
    d.send('hueDimmer2', hueButton(3, 'hold_release'), true);
    expect(await eventsOf(d, dimmer._id, 4)).toEqual([
      'on_press',
      'on_press_release',
      'down_hold',
      'down_hold_release',
    ]);
    d.send('hueDimmer2', hueBattery(1, 64));
    await d.readings(`${HUE_IEEE.hueDimmer2}/1`, (r) => r.battery === 64);

    const dial = await d.sensor(`${HUE_IEEE.hueTapDial}/1`);
    expect(dial.name).toBe('Philips Hue tap dial switch (8719514440937/8719514440999)');
    expect(dial.events).toEqual(expect.arrayContaining(['button_4_hold_release', 'brightness_step_up']));
    d.send('hueTapDial', hueButton(2, 'press'), true);
    d.send('hueTapDial', dialTurn('right'), true);
    d.send('hueTapDial', dialTurn('left'), true);
    expect(await eventsOf(d, dial._id, 3)).toEqual([
      'button_2_press',
      'brightness_step_up',
      'brightness_step_down',
    ]);
    // The ring's own notifications on 0xFC00: a signed amount, its size the speed.
    expect(dial.events).toEqual(expect.arrayContaining(['dial_rotate_left_slow', 'dial_rotate_right_fast']));
    d.send('hueTapDial', dialNotification(15, 1), true);
    d.send('hueTapDial', dialNotification(-60), true);
    d.send('hueTapDial', dialNotification(120), true);
    d.send('hueTapDial', dialNotification(-25), true);
    expect((await eventsOf(d, dial._id, 7)).slice(3)).toEqual([
      'dial_rotate_right_step',
      'dial_rotate_left_slow',
      'dial_rotate_right_fast',
      'dial_rotate_left_step',
    ]);

    const motionTwin = d.sim.coordinator.devices.get('hueMotion')!;
    for (const key of ['1030:0', '1024:0', '1026:0', '1:33'])
      expect(motionTwin.reporting.has(key)).toBe(true);
    const motion = await d.sensor(`${HUE_IEEE.hueMotion}/2`);
    expect(motion).toMatchObject({ name: 'Philips Hue motion sensor (9290012607)', type: 'motion' });
    const bulb = await until(async () =>
      ((await d!.h.site('GET', '/light')).body as Json[]).find(
        (l) => l.zigbeeid === `${HUE_IEEE.hueBulbB}/11`,
      ),
    );
    expect(bulb.capabilities.xy.gamut).toEqual([
      [0.675, 0.322],
      [0.409, 0.518],
      [0.167, 0.04],
    ]);
    await d.h.site('POST', '/sensor/action', {
      _id: motion._id,
      event: 'motion',
      action: { type: 'light', _id: bulb._id, on: true, bri: 255 },
    });
    d.send('hueMotion', hueMotionReports({ lux: 120, celsius: 19.5, occupied: true }));
    await d.event(motion._id, 'motion');
    const r = await d.readings(`${HUE_IEEE.hueMotion}/2`, (x) => x.temperature === 19.5);
    expect(r.illuminance).toBe(120);
    const bulbTwin = d.sim.coordinator.devices.get('hueBulbB')!;
    await until(async () => (bulbTwin.attr(0x0006, 0) === true ? true : undefined));
    d.send('hueMotion', hueMotionReports({ occupied: false }));
    await d.event(motion._id, 'no_motion');
  });
});

describe('Sonoff devices', () => {
  it('SNZB-01 button gestures, SNZB-02 readings, SNZB-03 motion and SNZB-04 contact as IAS zones, with their batteries', async () => {
    d = await startDeviceHub([sonoffButton(), sonoffClimate(), sonoffMotion(), sonoffContact()]);
    await pair(d, ['sonoffButton', 'sonoffClimate', 'sonoffMotion', 'sonoffContact', 'plug']);
    const button = await d.sensor(`${SONOFF_IEEE.sonoffButton}/1`);
    expect(button).toMatchObject({
      name: 'Sonoff wireless button (SNZB-01)',
      events: ['single', 'double', 'long'],
    });
    const plug = await until(async () =>
      ((await d!.h.site('GET', '/light')).body as Json[]).find((l) => l.vendor === 'zigbee'),
    );
    await d.h.site('POST', '/sensor/action', {
      _id: button._id,
      event: 'long',
      action: { type: 'light', _id: plug._id, on: true, bri: 255 },
    });
    for (const g of ['single', 'double', 'long'] as const) d.send('sonoffButton', sonoffPress(g), true);
    expect(await eventsOf(d, button._id, 3)).toEqual(['single', 'double', 'long']);
    const plugTwin = d.sim.coordinator.devices.get('plug')!;
    await until(async () => (plugTwin.attr(0x0006, 0) === true ? true : undefined));
    d.send('sonoffButton', sonoffBattery(12, 2700));
    await d.readings(`${SONOFF_IEEE.sonoffButton}/1`, (r) => r.battery === 12 && r.voltage === 2700);
    expect((await d.sensor(`${SONOFF_IEEE.sonoffButton}/1`)).warnings).toEqual(['low_battery']);

    const climate = await d.sensor(`${SONOFF_IEEE.sonoffClimate}/1`);
    expect(climate).toMatchObject({
      name: 'Sonoff temperature and humidity sensor (SNZB-02)',
      type: 'climate',
    });
    d.send('sonoffClimate', sonoffClimateReports(-3.25, 81.5));
    await d.readings(`${SONOFF_IEEE.sonoffClimate}/1`, (r) => r.temperature === -3.25 && r.humidity === 81.5);

    const motion = await d.sensor(`${SONOFF_IEEE.sonoffMotion}/1`);
    expect(motion).toMatchObject({ name: 'Sonoff motion sensor (SNZB-03)', type: 'motion' });
    const mz = d.sim.coordinator.devices.get('sonoffMotion')!.zone(true);
    expect(mz).not.toBeNull();
    d.send('sonoffMotion', mz!);
    await d.event(motion._id, 'motion');

    const door = await d.sensor(`${SONOFF_IEEE.sonoffContact}/1`);
    expect(door).toMatchObject({ name: 'Sonoff door and window sensor (SNZB-04)', type: 'contact' });
    const twin = d.sim.coordinator.devices.get('sonoffContact')!;
    await until(async () => (twin.zone(true) ? true : undefined));
    d.send('sonoffContact', twin.zone(true)!);
    await d.event(door._id, 'open');
    d.send('sonoffContact', twin.zone(false)!);
    await d.event(door._id, 'closed');
  });
});
