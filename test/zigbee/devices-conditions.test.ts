/**
 * Sensor actions with conditions, end to end: "motion → the lamp on, only when illuminance < 30 lux"
 * with the Aqara motion sensor's own reading, and "only between sunset and sunrise" from the site's
 * location (docs/lighting.md#action-conditions).
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  AQARA_IEEE,
  aqaraContact,
  aqaraMotion,
  contactState,
  motionDetected,
} from '../../scripts/simulators/znp-coordinator/vendor-devices/aqara.ts';
import type { Json } from '../mqtt/hub.ts';
import { type DeviceHub, pair, placeWhereSun, startDeviceHub, until } from './device-hub.ts';
import { PID } from './sim-helpers.ts';

let d: DeviceHub | null = null;
afterEach(async () => {
  await d?.stop();
  d = null;
});

/** On/Off commands the plug has received so far. */
const onOffCommands = (hub: DeviceHub) =>
  hub.sim.coordinator.devices.get('plug')!.received.filter((r) => r.cluster === 0x0006 && r.frame.kind === 1);

describe('sensor actions with conditions', () => {
  it('motion switches the lamp on only when the illuminance reading is below 30 lux', async () => {
    d = await startDeviceHub([aqaraMotion()]);
    await pair(d, ['aqaraMotion', 'plug']);
    const motion = await d.sensor(`${AQARA_IEEE.aqaraMotion}/1`);
    const plug = await until(async () =>
      ((await d!.h.site('GET', '/light')).body as Json[]).find((l) => l.zigbeeid === PID.plug),
    );
    const added = await d.h.site('POST', '/sensor/action', {
      _id: motion._id,
      event: 'motion',
      action: { type: 'light', _id: plug._id, on: true, bri: 255 },
      when: { illuminance: { below: 30 } },
    });
    expect(added.status).toBe(201);
    expect(added.body.actions.motion[0].when).toEqual({ illuminance: { below: 30 } });
    const before = onOffCommands(d).length;

    // Bright: the event is recorded, the lamp stays as it was.
    d.send('aqaraMotion', motionDetected(100));
    await d.event(motion._id, 'motion');
    await d.readings(`${AQARA_IEEE.aqaraMotion}/1`, (r) => r.illuminance === 100);
    // Dark: it goes on. Frames are handled in order, so one command in all means the bright one sent none.
    d.send('aqaraMotion', motionDetected(25));
    const plugTwin = d.sim.coordinator.devices.get('plug')!;
    await until(async () => (plugTwin.attr(0x0006, 0) === true ? true : undefined));
    expect(onOffCommands(d).length - before).toBe(1);
  });

  it('an action only between sunset and sunrise follows the sun at the site location; refused conditions are 4xx', async () => {
    d = await startDeviceHub([aqaraContact()]);
    await pair(d, ['aqaraContact', 'plug']);
    const door = await d.sensor(`${AQARA_IEEE.aqaraContact}/1`);
    const plug = await until(async () =>
      ((await d!.h.site('GET', '/light')).body as Json[]).find((l) => l.zigbeeid === PID.plug),
    );
    for (const when of [
      {},
      { sun: 'dusk' },
      { illuminance: 30 },
      { illuminance: { under: 30 } },
      { humidity: { below: 'x' } },
      { colour: { below: 1 } },
      { sensor: door._id },
    ]) {
      const r = await d.h.site('POST', '/sensor/action', {
        _id: door._id,
        event: 'open',
        action: { type: 'light', _id: plug._id, on: true, bri: 255 },
        when,
      });
      expect(r.status, JSON.stringify(when)).toBe(400);
      expect(r.body.message).toMatch(/when/);
    }
    const unknown = await d.h.site('POST', '/sensor/action', {
      _id: door._id,
      event: 'open',
      action: { type: 'light', _id: plug._id, on: true, bri: 255 },
      when: { sensor: 'nope', temperature: { above: 1 } },
    });
    expect(unknown.status).toBe(404);
    expect(((await d.h.site('GET', '/sensor')).body as Json[])[0].actions).toEqual({});

    await d.h.site('POST', '/sensor/action', {
      _id: door._id,
      event: 'open',
      action: { type: 'light', _id: plug._id, on: true, bri: 255 },
      when: { sun: 'night' },
    });
    const before = onOffCommands(d).length;
    expect((await d.h.site('PUT', '/location', placeWhereSun(true))).status).toBe(200);
    d.send('aqaraContact', contactState(true));
    await d.event(door._id, 'open');
    d.send('aqaraContact', contactState(false));
    await d.event(door._id, 'closed');
    expect((await d.h.site('PUT', '/location', placeWhereSun(false))).status).toBe(200);
    d.send('aqaraContact', contactState(true));
    const plugTwin = d.sim.coordinator.devices.get('plug')!;
    await until(async () => (plugTwin.attr(0x0006, 0) === true ? true : undefined));
    expect(onOffCommands(d).length - before).toBe(1);
  });
});
