/**
 * Hearth sensor events as Matter devices (readings are reading-endpoints.ts): what Matter can be told
 * is what an event says: a motion sensor's occupancy, a door contact's state, a remote's presses
 * (docs/matter.md#what-controllers-see). Which sensor is which is data (the tables below), not branches per vendor.
 */
import { Endpoint } from '@matter/main';
import { BooleanStateServer } from '@matter/main/behaviors/boolean-state';
import { BridgedDeviceBasicInformationServer } from '@matter/main/behaviors/bridged-device-basic-information';
import { OccupancySensingServer } from '@matter/main/behaviors/occupancy-sensing';
import { SwitchServer } from '@matter/main/behaviors/switch';
import { ContactSensorDevice } from '@matter/main/devices/contact-sensor';
import { GenericSwitchDevice } from '@matter/main/devices/generic-switch';
import { OccupancySensorDevice } from '@matter/main/devices/occupancy-sensor';
import type { SensorView } from '../lighting/types.ts';
import { label } from './light-endpoints.ts';

export type SensorType = 'occupancy' | 'contact' | 'switch';

export interface SensorShape {
  type: SensorType;
  /** Buttons of a remote (Generic Switch positions 1..n). */
  buttons: number;
  key: string;
}

/** Event name → what it says. `occupied`/`vacant` for motion sensors, `closed`/`open` for contacts. */
const OCCUPANCY = new Map([
  ['motion', true],
  ['occupied', true],
  ['presence', true],
  ['no_motion', false],
  ['clear', false],
  ['vacant', false],
]);
const CONTACT = new Map([
  ['close', true],
  ['closed', true],
  ['open', false],
  ['opened', false],
]);
type Press = { presses: 1 | 2 | 3 } | { long: true };
const PRESSES = new Map<string, Press>([
  ['single', { presses: 1 }],
  ['single_push', { presses: 1 }],
  ['short', { presses: 1 }],
  ['press', { presses: 1 }],
  ['on', { presses: 1 }],
  ['off', { presses: 1 }],
  ['double', { presses: 2 }],
  ['double_push', { presses: 2 }],
  ['triple', { presses: 3 }],
  ['triple_push', { presses: 3 }],
  ['long', { long: true }],
  ['hold', { long: true }],
  ['long_push', { long: true }],
]);

/** A motion sensor that never says "clear" is taken as vacant this long after its last motion. */
export const OCCUPANCY_HOLD_MS = 90_000;

/** `button2-double` → button 2, double; `input0-long_push` → button 1 (Shelly counts from 0); `3` → button 3. */
export function parsePress(event: string): { button: number; press: Press } | null {
  const m = /^(button|switch|input)(\d+)-(.+)$/i.exec(event);
  if (m?.[2] && m[3]) {
    const press = PRESSES.get(m[3].toLowerCase());
    const n = Number(m[2]) + (m[1]?.toLowerCase() === 'input' ? 1 : 0);
    return press && n >= 1 ? { button: n, press } : null;
  }
  if (/^\d+$/.test(event))
    return Number(event) >= 1 ? { button: Number(event), press: { presses: 1 } } : null;
  const press = PRESSES.get(event.toLowerCase());
  return press ? { button: 1, press } : null;
}

export function sensorShape(s: SensorView): SensorShape | null {
  const events = s.events.map((e) => e.toLowerCase());
  const type = s.type.toLowerCase();
  if (events.some((e) => OCCUPANCY.has(e)) || /motion|occupancy|presence/.test(type))
    return { type: 'occupancy', buttons: 0, key: 'occupancy' };
  if (events.some((e) => CONTACT.has(e)) || /contact|door|window/.test(type))
    return { type: 'contact', buttons: 0, key: 'contact' };
  const buttons = Math.max(0, ...s.events.map((e) => parsePress(e)?.button ?? 0));
  if (buttons > 0) return { type: 'switch', buttons, key: `switch:${buttons}` };
  return null;
}

export type SensorPusher = (event: string) => Promise<void>;

const RemoteSwitch = SwitchServer.with(
  'MomentarySwitch',
  'MomentarySwitchRelease',
  'MomentarySwitchLongPress',
  'MomentarySwitchMultiPress',
);
const Occupancy = OccupancySensingServer.with('PassiveInfrared');

const bridged = (s: SensorView, reachable: boolean) => ({
  bridgedDeviceBasicInformation: {
    nodeLabel: label(s.name),
    productLabel: label(`${s.vendor} ${s.type}`),
    vendorName: 'Hearth',
    reachable,
    uniqueId: s._id,
  },
});

export function sensorEndpoint(
  id: string,
  s: SensorView,
  shape: SensorShape,
  reachable: boolean,
): { endpoint: Endpoint; push: SensorPusher } {
  switch (shape.type) {
    case 'occupancy': {
      const endpoint = new Endpoint(
        OccupancySensorDevice.with(BridgedDeviceBasicInformationServer, Occupancy),
        {
          id,
          ...bridged(s, reachable),
          occupancySensing: { occupancy: { occupied: false } },
        },
      );
      let clear: NodeJS.Timeout | null = null;
      const setOccupied = (occupied: boolean) =>
        endpoint.set({ occupancySensing: { occupancy: { occupied } } });
      return {
        endpoint,
        async push(event) {
          const occupied = OCCUPANCY.get(event.toLowerCase());
          if (occupied === undefined) return;
          if (clear) clearTimeout(clear);
          clear = null;
          if (occupied) {
            clear = setTimeout(() => void setOccupied(false).catch(() => {}), OCCUPANCY_HOLD_MS);
            clear.unref();
          }
          await setOccupied(occupied);
        },
      };
    }
    case 'contact': {
      const endpoint = new Endpoint(
        ContactSensorDevice.with(BridgedDeviceBasicInformationServer, BooleanStateServer),
        {
          id,
          ...bridged(s, reachable),
          booleanState: { stateValue: true },
        },
      );
      return {
        endpoint,
        async push(event) {
          const closed = CONTACT.get(event.toLowerCase());
          // Matter 1.3 §7.1 Contact Sensor: StateValue true = in contact (closed).
          if (closed !== undefined) await endpoint.set({ booleanState: { stateValue: closed } });
        },
      };
    }
    case 'switch': {
      const endpoint = new Endpoint(
        GenericSwitchDevice.with(BridgedDeviceBasicInformationServer, RemoteSwitch),
        {
          id,
          ...bridged(s, reachable),
          switch: { numberOfPositions: shape.buttons + 1, currentPosition: 0, multiPressMax: 3 },
        },
      );
      return { endpoint, push: (event) => emitPress(endpoint, event) };
    }
  }
}

/**
 * A press as Matter's Generic Switch reports one (Matter 1.3 §1.13.7): InitialPress, then ShortRelease and
 * MultiPressComplete with the count, or LongPress and LongRelease. Position n is button n.
 */
async function emitPress(endpoint: Endpoint, event: string): Promise<void> {
  const parsed = parsePress(event);
  if (!parsed) return;
  const position = parsed.button;
  await endpoint.act((agent) => {
    const sw = agent.get(RemoteSwitch);
    const ev = sw.events;
    ev.initialPress.emit({ newPosition: position }, agent.context);
    if ('long' in parsed.press) {
      ev.longPress.emit({ newPosition: position }, agent.context);
      ev.longRelease.emit({ previousPosition: position }, agent.context);
      return;
    }
    ev.shortRelease.emit({ previousPosition: position }, agent.context);
    ev.multiPressComplete.emit(
      { previousPosition: position, totalNumberOfPressesCounted: parsed.press.presses },
      agent.context,
    );
  });
}
