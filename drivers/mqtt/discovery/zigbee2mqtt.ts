/**
 * zigbee2mqtt's retained `<base>/bridge/devices` list (docs/mqtt-devices.md#zigbee2mqtt): each device's `definition.exposes`
 * says whether it is a light (with or without brightness), a switch, or something with an `action`
 * (buttons, remotes). The coordinator, disabled and unsupported devices are skipped.
 */
import { DEFAULT_GAMUT, type DeviceKind, type LightCapabilities } from '../../lighting/index.ts';
import type { MqttDevice } from '../device.ts';
import { json, MAX_LIST_PAYLOAD, PayloadError } from '../payload.ts';

type Expose = {
  type?: unknown;
  name?: unknown;
  property?: unknown;
  values?: unknown;
  features?: unknown;
  value_min?: unknown;
  value_max?: unknown;
};

/** A light's `color_temp` feature (range in mireds) and `color_xy`/`color_hs` features. */
function capabilitiesOf(features: Expose[]): LightCapabilities | undefined {
  const caps: LightCapabilities = {};
  const ct = features.find((f) => f.name === 'color_temp');
  if (ct) {
    const ok = (n: unknown): n is number =>
      typeof n === 'number' && Number.isInteger(n) && n >= 50 && n <= 1000;
    const min = ok(ct.value_min) ? ct.value_min : 153;
    const max = ok(ct.value_max) ? ct.value_max : 500;
    if (min <= max) caps.ct = { min, max };
  }
  if (features.some((f) => f.name === 'color_xy' || f.name === 'color_hs'))
    caps.xy = { gamut: DEFAULT_GAMUT };
  return caps.ct || caps.xy ? caps : undefined;
}

const list = (v: unknown): Expose[] =>
  Array.isArray(v) ? v.filter((x): x is Expose => typeof x === 'object' && x !== null) : [];

/** zigbee2mqtt describes a plug as such in its definition: "Smart plug", "TRADFRI control outlet", "Power socket". */
const PLUG_WORDS = /\b(plug|outlet|socket)\b/i;

function classify(
  exposes: Expose[],
  description: string,
): { kind: DeviceKind; events?: string[]; capabilities?: LightCapabilities; plug?: boolean } | null {
  const lamp = exposes.find((e) => e.type === 'light' || e.type === 'switch');
  const action = exposes.find((e) => e.name === 'action' || e.property === 'action');
  const events = Array.isArray(action?.values)
    ? action.values.filter((v): v is string => typeof v === 'string' && v !== '')
    : undefined;
  if (lamp) {
    const features = list(lamp.features);
    const dimmable = lamp.type === 'light' && features.some((f) => f.name === 'brightness');
    const capabilities = lamp.type === 'light' ? capabilitiesOf(features) : undefined;
    // A relay (a `switch` expose) whose definition says plug; a `light` never is one.
    const plug = lamp.type === 'switch' && PLUG_WORDS.test(description);
    return {
      kind: dimmable ? 'dimmable' : 'binary',
      ...(events ? { events } : {}),
      ...(capabilities ? { capabilities } : {}),
      ...(plug ? { plug } : {}),
    };
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
    const description = typeof definition?.description === 'string' ? definition.description : '';
    const what = classify(list(definition?.exposes), description);
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
