/**
 * Shelly Gen2/Gen3 (docs/mqtt-devices.md#tasmota-and-shelly): JSON-RPC on `<prefix>/rpc` (`Switch.Set`, `Light.Set`,
 * `*.GetStatus`), answers on `<src>/rpc`, status notifications on `<prefix>/events/rpc` (NotifyStatus,
 * NotifyEvent for inputs) and, when "generic status update" is on, `<prefix>/status/<component>:<n>`.
 * `<prefix>/online` is the last will. Light brightness is 0..100.
 */
import { randomInt } from 'node:crypto';
import { briToPercent, percentToBri } from '../../lighting/index.ts';
import type { MqttDevice } from '../device.ts';
import { jsonObject, optBool, optNumber, PayloadError } from '../payload.ts';
import { anyReading, SHELLY_GEN2_SENSOR_COMPONENTS, shellyGen2Readings } from './readings.ts';
import { shellyOnline } from './shelly-gen1.ts';
import type { Inbound, Profile } from './types.ts';

/** Where the device answers our RPCs: `<src>/rpc`, inside the device's own prefix so its ACL covers it. */
export const replySource = (d: MqttDevice) => `${d.address}/hearth`;
const key = (d: MqttDevice) => `${d.component ?? 'switch'}:${d.channel ?? 0}`;
const method = (d: MqttDevice, verb: string) => `${d.component === 'light' ? 'Light' : 'Switch'}.${verb}`;

const rpc = (d: MqttDevice, verb: string, params: Record<string, unknown>) => ({
  topic: `${d.address}/rpc`,
  payload: JSON.stringify({
    id: randomInt(1, 2 ** 31),
    src: replySource(d),
    method: method(d, verb),
    params,
  }),
});

function statusOf(value: unknown): Inbound[] {
  if (typeof value !== 'object' || value === null) return [];
  const s = value as Record<string, unknown>;
  const state: Inbound = { type: 'state' };
  const on = optBool(s, 'output');
  const pct = optNumber(s, 'brightness');
  if (on !== undefined) state.on = on;
  if (pct !== undefined) state.bri = percentToBri(pct);
  return on === undefined && pct === undefined ? [] : [state];
}

function inputEvents(d: MqttDevice, params: Record<string, unknown>): Inbound[] {
  const list = params.events;
  if (!Array.isArray(list)) throw new PayloadError('NotifyEvent without events');
  const input = `input:${d.channel ?? 0}`;
  return list
    .filter((e): e is Record<string, unknown> => typeof e === 'object' && e !== null)
    .filter((e) => e.component === input && typeof e.event === 'string')
    .map((e) => ({ type: 'event', event: `input${d.channel ?? 0}-${e.event as string}` }));
}

export const shellyGen2: Profile = {
  topics: (d) => [
    `${d.address}/online`,
    `${d.address}/events/rpc`,
    `${d.address}/status/${key(d)}`,
    `${replySource(d)}/rpc`,
    ...(d.kind === 'sensor' ? SHELLY_GEN2_SENSOR_COMPONENTS.map((c) => `${d.address}/status/${c}`) : []),
  ],

  command(d, level) {
    const params: Record<string, unknown> = { id: d.channel ?? 0, on: level.on };
    if (level.on && d.component === 'light' && d.kind === 'dimmable')
      params.brightness = briToPercent(level.bri);
    return [rpc(d, 'Set', params)];
  },

  query: (d) => (d.kind === 'sensor' ? [] : [rpc(d, 'GetStatus', { id: d.channel ?? 0 })]),

  parse(d, topic, payload) {
    if (topic === `${d.address}/online`) return [{ type: 'availability', online: shellyOnline(payload) }];
    const obj = jsonObject(payload);
    const component = topic.slice(`${d.address}/status/`.length);
    if (d.kind === 'sensor' && SHELLY_GEN2_SENSOR_COMPONENTS.includes(component)) {
      const readings = shellyGen2Readings(component, obj);
      return anyReading(readings) ? [{ type: 'readings', readings }] : [];
    }
    if (topic === `${d.address}/status/${key(d)}`) return d.kind === 'sensor' ? [] : statusOf(obj);
    if (topic === `${replySource(d)}/rpc`) return d.kind === 'sensor' ? [] : statusOf(obj.result);
    const params = obj.params;
    if (typeof params !== 'object' || params === null) throw new PayloadError('notification without params');
    const p = params as Record<string, unknown>;
    if (obj.method === 'NotifyEvent') return inputEvents(d, p);
    if (obj.method === 'NotifyStatus' || obj.method === 'NotifyFullStatus')
      return d.kind === 'sensor' ? [] : statusOf(p[key(d)]);
    return [];
  },
};
