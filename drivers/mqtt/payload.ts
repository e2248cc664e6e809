/**
 * Reading what devices send. Anything can arrive on a topic (docs/lighting.md#desired-and-reported-state): payloads are size-limited,
 * parsed defensively and reduced to the few fields a profile needs; the caller logs and drops the rest.
 */

/** Larger device payloads are dropped unread (Tasmota's own limit is 1,000 bytes; z2m states are small). */
export const MAX_DEVICE_PAYLOAD = 16 * 1024;
/** `bridge/devices` lists every device of a zigbee2mqtt install: allow more. */
export const MAX_LIST_PAYLOAD = 4 * 1024 * 1024;

export class PayloadError extends Error {}

export function text(payload: Buffer, max = MAX_DEVICE_PAYLOAD): string {
  if (payload.length > max) throw new PayloadError(`payload of ${payload.length} bytes exceeds ${max}`);
  return payload.toString('utf8');
}

export function jsonObject(payload: Buffer, max = MAX_DEVICE_PAYLOAD): Record<string, unknown> {
  const value = json(payload, max);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new PayloadError('payload is not a JSON object');
  return value as Record<string, unknown>;
}

export function json(payload: Buffer, max = MAX_DEVICE_PAYLOAD): unknown {
  const s = text(payload, max);
  try {
    return JSON.parse(s);
  } catch {
    throw new PayloadError('payload is not JSON');
  }
}

/** A finite number, or undefined (absent); anything else is a payload error. */
export function optNumber(obj: Record<string, unknown>, key: string): number | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new PayloadError(`${key} is not a number`);
  return v;
}

export function optString(obj: Record<string, unknown>, key: string): string | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new PayloadError(`${key} is not a string`);
  return v;
}

export function optBool(obj: Record<string, unknown>, key: string): boolean | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw new PayloadError(`${key} is not a boolean`);
  return v;
}

/** A topic name a device announced: never a wildcard, which only filters may hold (MQTT 3.1.1 §4.7.1). */
export function optTopic(obj: Record<string, unknown>, key: string): string | undefined {
  const v = optString(obj, key);
  if (v !== undefined && (v === '' || v.includes('+') || v.includes('#')))
    throw new PayloadError(`${key} is not a topic name`);
  return v;
}

/** `ON`/`OFF` in any case (zigbee2mqtt, HA, Tasmota); undefined when absent. */
export function onOff(v: unknown, key: string): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') {
    const up = v.toUpperCase();
    if (up === 'ON' || up === '1' || up === 'TRUE') return true;
    if (up === 'OFF' || up === '0' || up === 'FALSE') return false;
  }
  if (typeof v === 'boolean') return v;
  throw new PayloadError(`${key} is neither ON nor OFF`);
}
