/**
 * Every IKEA, Hue and Sonoff device of the table drives a sensor action with a condition: the twin is
 * paired with a plug, an action with `when` is bound to its event, the event while the condition does not
 * hold switches nothing, the same event once it holds switches the plug on (docs/lighting.md#action-conditions).
 * IKEA and Hue remotes are gated by "only at night" (the site's location), Sonoff sensors by the SNZB-02's
 * temperature ("only when it is cold"), which is how the SNZB-02, a sensor without events, drives them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Outgoing, SimDevice, SimDeviceName } from '../../scripts/simulators/znp-coordinator/devices.ts';
import {
  HUE_IEEE,
  hueButton,
  hueDimmer2,
  hueTapDial,
} from '../../scripts/simulators/znp-coordinator/vendor-devices/hue.ts';
import {
  IKEA_IEEE,
  ikeaArrow,
  ikeaButton,
  ikeaOnOff,
  ikeaShortcut,
  ikeaStyrbar,
} from '../../scripts/simulators/znp-coordinator/vendor-devices/ikea.ts';
import {
  SONOFF_IEEE,
  sonoffClimate,
  sonoffClimateReports,
  sonoffContact,
  sonoffMotion,
} from '../../scripts/simulators/znp-coordinator/vendor-devices/sonoff.ts';
import type { Json } from '../mqtt/hub.ts';
import { type DeviceHub, pair, placeWhereSun, startDeviceHub, until } from './device-hub.ts';
import { PID } from './sim-helpers.ts';

let d: DeviceHub | null = null;
afterEach(async () => {
  await d?.stop();
  d = null;
});

interface Gate {
  /** The action's `when`, given the hub (a condition may name another sensor of the site). */
  when(hub: DeviceHub): Promise<Json>;
  /** Makes the condition hold, or not, and waits until the site knows. */
  set(hub: DeviceHub, holds: boolean): Promise<void>;
}

/** "Only between sunset and sunrise" at the site's location. */
const atNight: Gate = {
  when: async () => ({ sun: 'night' }),
  async set(hub, holds) {
    expect((await hub.h.site('PUT', '/location', placeWhereSun(!holds))).status).toBe(200);
  },
};

const climatePid = `${SONOFF_IEEE.sonoffClimate}/1`;

/** "Only when the SNZB-02 reads below 18 °C". */
const whenCold: Gate = {
  when: async (hub) => ({ sensor: (await hub.sensor(climatePid))._id, temperature: { below: 18 } }),
  async set(hub, holds) {
    const celsius = holds ? 15.5 : 22.25;
    hub.send('sonoffClimate', sonoffClimateReports(celsius, 50));
    await hub.readings(climatePid, (r) => r.temperature === celsius);
  },
};

interface Case {
  device: string;
  twins: () => SimDevice[];
  name: SimDeviceName;
  pid: string;
  event: string;
  gate: Gate;
  /** The frames the device sends for one occurrence of the event (bound remotes need the binding). */
  trigger(hub: DeviceHub): Promise<void>;
}

const press =
  (name: SimDeviceName, out: Outgoing): Case['trigger'] =>
  async (hub) =>
    hub.send(name, out, true);

/** An IAS zone alarm then its end, so each trigger is a fresh state change. */
const zone =
  (name: SimDeviceName): Case['trigger'] =>
  async (hub) => {
    const twin = hub.sim.coordinator.devices.get(name)!;
    const alarm = await until(async () => twin.zone(true) ?? undefined);
    hub.send(name, alarm);
    hub.send(name, twin.zone(false)!);
  };

const CASES: Case[] = [
  {
    device: 'IKEA on/off switch E1743',
    twins: () => [ikeaOnOff()],
    name: 'ikeaOnOff',
    pid: `${IKEA_IEEE.ikeaOnOff}/1`,
    event: 'on',
    gate: atNight,
    trigger: press('ikeaOnOff', ikeaButton('on')),
  },
  {
    device: 'IKEA STYRBAR',
    twins: () => [ikeaStyrbar()],
    name: 'ikeaStyrbar',
    pid: `${IKEA_IEEE.ikeaStyrbar}/1`,
    event: 'arrow_left_click',
    gate: atNight,
    trigger: press('ikeaStyrbar', ikeaArrow('left', 'click')),
  },
  {
    device: 'IKEA shortcut button E1812',
    twins: () => [ikeaShortcut()],
    name: 'ikeaShortcut',
    pid: `${IKEA_IEEE.ikeaShortcut}/1`,
    event: 'on',
    gate: atNight,
    trigger: press('ikeaShortcut', ikeaButton('on')),
  },
  {
    device: 'Hue dimmer switch RWL022',
    twins: () => [hueDimmer2()],
    name: 'hueDimmer2',
    pid: `${HUE_IEEE.hueDimmer2}/1`,
    event: 'on_press',
    gate: atNight,
    trigger: press('hueDimmer2', hueButton(1, 'press')),
  },
  {
    device: 'Hue tap dial RDM002',
    twins: () => [hueTapDial()],
    name: 'hueTapDial',
    pid: `${HUE_IEEE.hueTapDial}/1`,
    event: 'button_1_press',
    gate: atNight,
    trigger: press('hueTapDial', hueButton(1, 'press')),
  },
  {
    device: 'Sonoff SNZB-03 motion, gated by the SNZB-02 temperature',
    twins: () => [sonoffMotion(), sonoffClimate()],
    name: 'sonoffMotion',
    pid: `${SONOFF_IEEE.sonoffMotion}/1`,
    event: 'motion',
    gate: whenCold,
    trigger: zone('sonoffMotion'),
  },
  {
    device: 'Sonoff SNZB-04 contact, gated by the SNZB-02 temperature',
    twins: () => [sonoffContact(), sonoffClimate()],
    name: 'sonoffContact',
    pid: `${SONOFF_IEEE.sonoffContact}/1`,
    event: 'open',
    gate: whenCold,
    trigger: zone('sonoffContact'),
  },
];

/** On/Off commands the plug has received so far. */
const onOffCommands = (hub: DeviceHub) =>
  hub.sim.coordinator.devices.get('plug')!.received.filter((r) => r.cluster === 0x0006 && r.frame.kind === 1);

/** Waits until the site has recorded `count` occurrences of a sensor's event. */
const occurrences = (hub: DeviceHub, sensorId: string, event: string, count: number) =>
  until(async () => {
    const list = ((await hub.h.site('GET', '/sensor/event')).body as Json[]).filter(
      (e) => e._id === sensorId && e.event === event,
    );
    return list.length >= count ? list.length : undefined;
  });

describe('every IKEA, Hue and Sonoff device drives a sensor action with a condition', () => {
  it.each(CASES)('$device: $event switches the plug only while the condition holds', async (c) => {
    const twins = c.twins();
    d = await startDeviceHub(twins);
    await pair(d, [...twins.map((t) => t.name), 'plug']);
    const sensor = await d.sensor(c.pid);
    const plug = await until(async () =>
      ((await d!.h.site('GET', '/light')).body as Json[]).find((l) => l.zigbeeid === PID.plug),
    );
    const when = await c.gate.when(d);
    const added = await d.h.site('POST', '/sensor/action', {
      _id: sensor._id,
      event: c.event,
      action: { type: 'light', _id: plug._id, on: true, bri: 255 },
      when,
    });
    expect(added.status).toBe(201);
    expect(added.body.actions[c.event][0].when).toEqual(when);
    const before = onOffCommands(d).length;

    // The condition does not hold: the event is recorded, the plug stays off.
    await c.gate.set(d, false);
    await c.trigger(d);
    await occurrences(d, sensor._id, c.event, 1);
    expect(d.sim.coordinator.devices.get('plug')!.attr(0x0006, 0)).not.toBe(true);

    // It holds: the same event switches the plug on. Frames are handled in order, so exactly one On/Off
    // command in all means the first occurrence sent none.
    await c.gate.set(d, true);
    await c.trigger(d);
    await occurrences(d, sensor._id, c.event, 2);
    const plugTwin = d.sim.coordinator.devices.get('plug')!;
    await until(async () => (plugTwin.attr(0x0006, 0) === true ? true : undefined));
    expect(onOffCommands(d).length - before).toBe(1);
  });
});
