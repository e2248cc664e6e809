/**
 * Aqara / Xiaomi devices from pairing to the site API: each twin sends what the real device sends
 * (docs/zigbee.md#the-device-table); the table names it, sets nothing up on it, turns its frames into
 * zigbee2mqtt's action names and readings, and a sensor action fires on its event.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  AQARA_IEEE,
  aqaraContact,
  aqaraMiniSwitch,
  aqaraMotion,
  aqaraWallSwitch,
  aqaraWeather,
  click,
  contactState,
  heartbeat,
  motionDetected,
  wallPress,
  weatherReports,
} from '../../scripts/simulators/znp-coordinator/vendor-devices/aqara.ts';
import { SiteSocket } from '../lighting/ws-client.ts';
import type { Json } from '../mqtt/hub.ts';
import { type DeviceHub, pair, startDeviceHub, until } from './device-hub.ts';
import { PID } from './sim-helpers.ts';

let d: DeviceHub | null = null;
afterEach(async () => {
  await d?.stop();
  d = null;
});

const pid = (ieee: string, ep = 1) => `${ieee}/${ep}`;

describe('Aqara devices', () => {
  it('the mini switch pairs without any set-up, names itself, reports its clicks by zigbee2mqtt name and its battery from the heartbeat, and drives an action', async () => {
    d = await startDeviceHub([aqaraMiniSwitch()]);
    await pair(d, ['aqaraMiniSwitch', 'plug']);
    const twin = d.sim.coordinator.devices.get('aqaraMiniSwitch')!;
    // No bind and no configure-reporting: Xiaomi devices ignore them or sleep before answering.
    expect(twin.binds.size).toBe(0);
    expect(twin.reporting.size).toBe(0);
    const sensor = await d.sensor(pid(AQARA_IEEE.aqaraMiniSwitch));
    expect(sensor).toMatchObject({
      name: 'Aqara wireless mini switch (WXKG11LM)',
      type: 'button',
      events: ['single', 'double', 'triple', 'quadruple', 'hold', 'release'],
      checkInSeconds: 10_800,
    });
    // Never heard from yet: the seed's shape, no readings field.
    expect(sensor).not.toHaveProperty('readings');
    const plug = await until(async () =>
      ((await d!.h.site('GET', '/light')).body as Json[]).find((l) => l.zigbeeid === PID.plug),
    );
    const bound = await d.h.site('POST', '/sensor/action', {
      _id: sensor._id,
      event: 'double',
      action: { type: 'light', _id: plug._id, on: true, bri: 255 },
    });
    expect(bound.status).toBe(201);

    const ws = await SiteSocket.open(`${d.h.t.url}/api/site/${d.h.sitekey}/ws`);
    try {
      d.send('aqaraMiniSwitch', click('double'));
      await d.event(sensor._id, 'double');
      const plugTwin = d.sim.coordinator.devices.get('plug')!;
      await until(async () => (plugTwin.attr(0x0006, 0) === true ? true : undefined));
      for (const a of ['single', 'hold', 'release']) {
        d.send('aqaraMiniSwitch', click(a));
        await d.event(sensor._id, a);
      }

      d.send('aqaraMiniSwitch', heartbeat({ millivolts: 2955 }));
      const r = await d.readings(pid(AQARA_IEEE.aqaraMiniSwitch), (x) => x.voltage === 2955);
      expect(r).toMatchObject({ battery: 70, voltage: 2955, linkquality: 180 });
      expect(Date.parse(r.lastSeen)).toBeGreaterThan(Date.now() - 60_000);
      const pushed = await ws.next(
        'sensorReadings',
        (x) => x._id === sensor._id && x.readings.voltage === 2955,
      );
      expect(pushed.data.readings).toMatchObject({ battery: 70 });

      // A nearly flat cell: below 15 % the sensor carries a warning.
      d.send('aqaraMiniSwitch', heartbeat({ millivolts: 2860 }));
      await d.readings(pid(AQARA_IEEE.aqaraMiniSwitch), (x) => x.battery === 7);
      const warned = await d.sensor(pid(AQARA_IEEE.aqaraMiniSwitch));
      expect(warned.warnings).toEqual(['low_battery']);
    } finally {
      await ws.close();
    }
  });

  it('the motion sensor reports motion with its illuminance, the hub times the no_motion it never sends, and an illuminance reading lands in history', async () => {
    d = await startDeviceHub([aqaraMotion()], { occupancyTimeoutSeconds: 1 });
    await pair(d, ['aqaraMotion']);
    const sensor = await d.sensor(pid(AQARA_IEEE.aqaraMotion));
    expect(sensor).toMatchObject({
      name: 'Aqara motion sensor (RTCGQ11LM)',
      type: 'motion',
      events: ['motion', 'no_motion'],
    });
    d.send('aqaraMotion', motionDetected(25));
    await d.event(sensor._id, 'motion');
    await d.readings(pid(AQARA_IEEE.aqaraMotion), (r) => r.illuminance === 25);
    await d.event(sensor._id, 'no_motion');
    d.send('aqaraMotion', heartbeat({ millivolts: 3005, lux: 40 }));
    await d.readings(pid(AQARA_IEEE.aqaraMotion), (r) => r.illuminance === 40 && r.battery === 100);
    const history = await until(async () => {
      const list = (await d!.h.site('GET', `/history?sensor=${sensor._id}&type=reading`)).body as Json[];
      return list.length ? list : undefined;
    });
    expect(history[0]).toMatchObject({ type: 'reading', _id: sensor._id });
    expect(history.some((e) => e.readings.illuminance === 40 || e.readings.illuminance === 25)).toBe(true);
  });

  it('the door sensor, the weather sensor and the wall switch used as a remote, its action gated by the weather sensor', async () => {
    d = await startDeviceHub([aqaraContact(), aqaraWeather(), aqaraWallSwitch()]);
    await pair(d, ['aqaraContact', 'aqaraWeather', 'aqaraWallSwitch', 'plug']);
    const door = await d.sensor(pid(AQARA_IEEE.aqaraContact));
    expect(door).toMatchObject({ name: 'Aqara door and window sensor (MCCGQ11LM)', type: 'contact' });
    d.send('aqaraContact', contactState(true));
    await d.event(door._id, 'open');
    d.send('aqaraContact', contactState(false));
    await d.event(door._id, 'closed');

    const weather = await d.sensor(pid(AQARA_IEEE.aqaraWeather));
    expect(weather).toMatchObject({ type: 'climate', events: [] });
    d.send('aqaraWeather', weatherReports(21.5, 48.2, 1003.4));
    const r = await d.readings(pid(AQARA_IEEE.aqaraWeather), (x) => x.pressure !== undefined);
    expect(r).toMatchObject({ temperature: 21.5, humidity: 48.2, pressure: 1003.4 });
    d.send(
      'aqaraWeather',
      heartbeat({ millivolts: 3000, temperature: 22.25, humidity: 50, pascal: 100_120 }),
    );
    await d.readings(
      pid(AQARA_IEEE.aqaraWeather),
      (x) => x.temperature === 22.25 && x.humidity === 50 && x.pressure === 1001.2 && x.battery === 100,
    );

    // The relays are endpoints 2 and 3; the switch is one sensor (a remote) named by its first relay.
    const wall = await d.sensor(pid(AQARA_IEEE.aqaraWallSwitch, 2));
    expect(wall.name).toBe('Aqara wall switch, two buttons, no neutral (QBKG03LM)');
    expect(wall.events).toContain('single_left');
    // Not a light: the only light of the site is the plug.
    const lights = await until(async () => {
      const list = (await d!.h.site('GET', '/light')).body as Json[];
      return list.length ? list : undefined;
    });
    expect(lights.map((l) => l.zigbeeid)).toEqual([PID.plug]);
    // The heater plug goes on from the left button, only while the weather sensor reads below 25 °C.
    const added = await d.h.site('POST', '/sensor/action', {
      _id: wall._id,
      event: 'single_left',
      action: { type: 'light', _id: lights[0]._id, on: true, bri: 255 },
      when: { sensor: weather._id, temperature: { below: 25 } },
    });
    expect(added.status).toBe(201);
    d.send('aqaraWallSwitch', wallPress('both'));
    await d.event(wall._id, 'single_both');
    d.send('aqaraWallSwitch', wallPress('left'));
    await d.event(wall._id, 'single_left');
    const plugTwin = d.sim.coordinator.devices.get('plug')!;
    await until(async () => (plugTwin.attr(0x0006, 0) === true ? true : undefined));
  });
});
