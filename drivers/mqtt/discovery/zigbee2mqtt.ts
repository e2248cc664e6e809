/**
 * zigbee2mqtt's retained `<base>/bridge/devices` list (docs/mqtt-devices.md#zigbee2mqtt): each device's `definition.exposes`
 * says whether it is a light (with or without brightness), a switch, or something with an `action`
 * (buttons, remotes). The coordinator, disabled and unsupported devices are skipped.
 */
import type { DeviceKind } from '../../lighting/index.ts';
import type { MqttDevice } from '../device.ts';
import { json, MAX_LIST_PAYLOAD, PayloadError } from '../payload.ts';

type Expose = { type?: unknown; name?: unknown; property?: unknown; values?: unknown; features?: unknown };

const list = (v: unknown): Expose[] =>
  Array.isArray(v) ? v.filter((x): x is Expose => typeof x === 'object' && x !== null) : [];

function classify(exposes: Expose[]): { kind: DeviceKind; events?: string[] } | null {
  const lamp = exposes.find((e) => e.type === 'light' || e.type === 'switch');
  const action = exposes.find((e) => e.name === 'action' || e.property === 'action');
  const events = Array.isArray(action?.values)
    ? action.values.filter((v): v is string => typeof v === 'string' && v !== '')
    : undefined;
  if (lamp) {
    const dimmable = lamp.type === 'light' && list(lamp.features).some((f) => f.name === 'brightness');
    return { kind: dimmable ? 'dimmable' : 'binary', ...(events ? { events } : {}) };
  }
  if (action) return { kind: 'sensor', events: events ?? [] };
  return null;
}

/** The lights and sensors in a `bridge/devices` payload. */
export function parseBridgeDevices(payload: Buffer, base: string): MqttDevice[] {
  const raw = json(payload, MAX_LIST_PAYLOAD);
  if (!Array.isArray(raw)) throw new PayloadError('bridge/devices is not an array');
  const out: MqttDevice[] = [];
  for (const entry of raw) {
    if (typeof entry !== 'object' || entry === null) continue;
    const d = entry as Record<string, unknown>;
    if (d.type === 'Coordinator' || d.disabled === true || typeof d.friendly_name !== 'string') continue;
    // The name becomes a topic: one with a wildcard (z2m refuses those itself) is not a device's.
    if (/[+#]/.test(d.friendly_name) || d.friendly_name === '') continue;
    const definition = d.definition as { exposes?: unknown; description?: unknown } | null | undefined;
    const what = classify(list(definition?.exposes));
    if (!what) continue;
    const name = d.friendly_name;
    out.push({
      protocolid: `zigbee2mqtt:${name}`,
      profile: 'zigbee2mqtt',
      address: `${base}/${name}`,
      name,
      ...what,
    });
  }
  return out;
}
