/**
 * Request bodies of the designed (spec "not shown") methods, parsed into typed changes. Existence of
 * referenced `_id`s is checked by the catalog, which knows the site.
 */
import type { LightCapabilities } from '../../../drivers/lighting/index.ts';
import type { ActionSpec, LightType, SceneEntry } from '../types.ts';
import {
  asObject,
  type Body,
  bool,
  bri,
  invalid,
  nested,
  onlyFields,
  optStr,
  str,
  strArray,
} from './check.ts';
import { hasColourFields, parseCapabilities } from './colour.ts';
import { type ActionCondition, parseCondition } from './conditions.ts';
import { eventName, eventNames } from './sensor-events.ts';

export const VENDOR = /^[a-z][a-z0-9-]{0,31}$/;
// spec: subdef is colon-separated groups of two hex digits (four groups observed)
const SUBDEF = /^[0-9a-f]{2}(:[0-9a-f]{2}){1,7}$/;

export interface LightFields {
  name: string;
  type: LightType;
  capabilities?: LightCapabilities;
  /** Only ever stored as true (README "Plugs"); false on create means "not a plug, whatever the device says". */
  plug?: boolean;
  vendor: string;
  protocolid: string;
  subdef: string | null;
  driver?: string;
  new?: boolean;
}

function vendorOf(body: Body): string {
  const v = str(body, 'vendor', { max: 32 });
  if (!VENDOR.test(v)) throw invalid('vendor must be lower-case letters, digits and dashes (e.g. zigbee)');
  return v;
}

function lightType(body: Body): LightType {
  const t = body.type;
  if (t !== 'dimmable' && t !== 'binary') throw invalid('type must be "dimmable" or "binary"');
  return t;
}

function subdef(body: Body): string | null {
  const v = body.subdef;
  // "" is how every answer shows a light without one: sent back in a whole object, it means none.
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string' || !SUBDEF.test(v.toLowerCase())) {
    throw invalid('subdef must be hex byte pairs separated by colons, e.g. ff:ee:33:00');
  }
  return v.toLowerCase();
}

/** spec: the protocol id field is the vendor name followed by `id` (`zigbeeid`); `protocolid` also accepted. */
function protocolId(body: Body, vendor: string): string {
  const key = body[`${vendor}id`] !== undefined ? `${vendor}id` : 'protocolid';
  if (body[key] === undefined) throw invalid(`${vendor}id is required`);
  const id = str(body, key, { max: 200 });
  // An id padded with spaces or holding control characters names no device of any vendor.
  if (id.trim() !== id) throw invalid(`${key} must not start or end with spaces`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(id)) throw invalid(`${key} must not contain control characters`);
  return id;
}

const isVendorIdField = (key: string) => /^[a-z][a-z0-9-]{0,31}id$/.test(key);
const LIGHT_FIELDS = [
  '_id',
  'siteid',
  'name',
  'type',
  'vendor',
  'protocolid',
  'subdef',
  'driver',
  'on',
  'bri',
  'new',
  'capabilities',
  'plug',
  // the confirmed colour, sent back in a whole light object: ignored like on/bri
  'ct',
  'xy',
  'colormode',
];

/**
 * `new` in a modify body: `false` accepts a light or sensor a plugin created from discovery; `true` (sent
 * back in a whole object) changes nothing: nothing becomes new again through the API.
 */
function acceptNew(body: Body, next: { new?: boolean }): void {
  if (body.new === undefined) return;
  if (bool(body, 'new') === false) delete next.new;
}

export function parseLightCreate(raw: unknown): LightFields {
  const body = asObject(raw);
  onlyFields(body, LIGHT_FIELDS, isVendorIdField);
  const vendor = vendorOf(body);
  const fields: LightFields = {
    name: str(body, 'name'),
    type: lightType(body),
    vendor,
    protocolid: protocolId(body, vendor),
    subdef: subdef(body),
  };
  const driver = optStr(body, 'driver', { max: 64 });
  if (driver !== undefined) fields.driver = driver;
  const capabilities = parseCapabilities(body.capabilities);
  if (capabilities) fields.capabilities = capabilities;
  const plug = parsePlug(body);
  if (plug !== undefined) fields.plug = plug;
  return fields;
}

/** `plug`: true or false; `null` (modify) is false. Absent: undefined. */
function parsePlug(body: Body): boolean | undefined {
  if (body.plug === undefined) return undefined;
  if (body.plug === null) return false;
  if (typeof body.plug !== 'boolean') throw invalid('plug must be true or false');
  return body.plug;
}

/** PUT /light: `_id` plus the fields to change; `on`/`bri` are ignored here (they belong to /light/state). */
export function parseLightModify(raw: unknown, current: LightFields): LightFields {
  const body = asObject(raw);
  onlyFields(body, LIGHT_FIELDS, isVendorIdField);
  const next: LightFields = { ...current };
  if (body.name !== undefined) next.name = str(body, 'name');
  if (body.type !== undefined) next.type = lightType(body);
  if (body.vendor !== undefined) next.vendor = vendorOf(body);
  if (body[`${next.vendor}id`] !== undefined || body.protocolid !== undefined) {
    next.protocolid = protocolId(body, next.vendor);
  } else if (next.vendor !== current.vendor) {
    throw invalid(`${next.vendor}id is required when vendor changes`);
  }
  if (body.subdef !== undefined) next.subdef = subdef(body);
  // `driver: null` unpins the light (it is served by the site's first driver of its vendor again).
  if (body.driver === null) delete next.driver;
  else if (body.driver !== undefined) next.driver = str(body, 'driver', { max: 64 });
  // `capabilities: null` removes them: the light goes back to the spec's shape
  if (body.capabilities !== undefined) {
    const capabilities = parseCapabilities(body.capabilities);
    if (capabilities) next.capabilities = capabilities;
    else delete next.capabilities;
  }
  // `plug: false` or `null` removes the mark: the light is a lamp again
  const plug = parsePlug(body);
  if (plug === true) next.plug = true;
  else if (plug === false) delete next.plug;
  acceptNew(body, next);
  return next;
}

/** A scene entry as sent: its level, and the raw colour fields when it has any. */
export type ParsedSceneEntry = SceneEntry & { colourInput?: Body };

export function parseSceneState(body: Body): ParsedSceneEntry[] {
  const v = body.state;
  if (!Array.isArray(v)) throw invalid('state must be an array of {_id, on, bri}');
  if (v.length > 500) throw invalid('state must have at most 500 entries');
  return v.map((entry, i) => {
    const e = asObject(entry, `state[${i}]`);
    return nested(`state[${i}]`, () => {
      const entry: ParsedSceneEntry = { _id: str(e, '_id'), on: bool(e, 'on'), bri: bri(e) };
      // colour is checked against the light's capabilities once the catalog has found the light
      if (hasColourFields(e)) entry.colourInput = e;
      return entry;
    });
  });
}

export function parseSceneCreate(raw: unknown): { name: string; state: ParsedSceneEntry[] } {
  const body = asObject(raw);
  onlyFields(body, ['_id', 'siteid', 'name', 'state']);
  return { name: str(body, 'name'), state: parseSceneState(body) };
}

export function parseGroupCreate(raw: unknown): { name: string; lights: string[] } {
  const body = asObject(raw);
  onlyFields(body, ['_id', 'siteid', 'name', 'lights', 'on', 'bri']);
  return { name: str(body, 'name'), lights: strArray(body, 'lights') };
}

export interface SensorFields {
  name: string;
  vendor: string;
  protocolid: string;
  type: string;
  events: string[];
  /** Silent for longer than this, the sensor shows a `silent` warning (docs/lighting.md#sensor-readings). */
  checkInSeconds?: number;
  new?: boolean;
}

// `readings` and `warnings` are what the API shows of a sensor; a client that sends a sensor back as it
// got it is not refused for them, and they are not taken from a body.
const SENSOR_FIELDS = [
  '_id',
  'siteid',
  'name',
  'vendor',
  'protocolid',
  'type',
  'events',
  'actions',
  'new',
  'checkInSeconds',
  'readings',
  'warnings',
];

/** A check-in period: whole seconds from a minute to a week. */
function checkIn(body: Body): number {
  const v = body.checkInSeconds;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 60 || v > 7 * 86_400)
    throw invalid('checkInSeconds must be a whole number of seconds from 60 to 604800');
  return v;
}

export function parseSensorCreate(raw: unknown): SensorFields {
  const body = asObject(raw);
  onlyFields(body, SENSOR_FIELDS, isVendorIdField);
  const vendor = vendorOf(body);
  return {
    name: str(body, 'name'),
    vendor,
    protocolid: protocolId(body, vendor),
    type: str(body, 'type', { max: 32 }),
    events: body.events === undefined ? [] : eventNames(body),
    ...(body.checkInSeconds === undefined ? {} : { checkInSeconds: checkIn(body) }),
  };
}

export function parseSensorModify(raw: unknown, current: SensorFields): SensorFields {
  const body = asObject(raw);
  onlyFields(body, SENSOR_FIELDS, isVendorIdField);
  if (body.actions !== undefined) throw invalid('actions are changed with POST/DELETE /sensor/action');
  const next = { ...current };
  if (body.name !== undefined) next.name = str(body, 'name');
  if (body.vendor !== undefined) next.vendor = vendorOf(body);
  if (body[`${next.vendor}id`] !== undefined || body.protocolid !== undefined) {
    next.protocolid = protocolId(body, next.vendor);
  } else if (next.vendor !== current.vendor) {
    throw invalid(`${next.vendor}id is required when vendor changes`);
  }
  if (body.type !== undefined) next.type = str(body, 'type', { max: 32 });
  if (body.events !== undefined) next.events = eventNames(body);
  if (body.checkInSeconds === null) delete next.checkInSeconds;
  else if (body.checkInSeconds !== undefined) next.checkInSeconds = checkIn(body);
  acceptNew(body, next);
  return next;
}

/** A parsed action: a light action also carries its raw colour fields, checked once the light is known. */
export type ParsedAction = ActionSpec & { colourInput?: Body };

const LIGHT_ACTION_FIELDS = [
  'type',
  '_id',
  'on',
  'bri',
  'ct',
  'kelvin',
  'xy',
  'hex',
  'hue',
  'sat',
  'transition',
];

/** POST /sensor/action `{_id, event, action}`; docs/lighting.md#the-designed-methods, actions modelled on deCONZ rules. */
export function parseActionAdd(raw: unknown): {
  sensorId: string;
  event: string;
  action: ParsedAction;
  when?: ActionCondition;
} {
  const body = asObject(raw);
  onlyFields(body, ['_id', 'event', 'action', 'when']);
  const sensorId = str(body, '_id');
  const event = eventName(body);
  const a = asObject(body.action, 'action');
  // The type decides which fields the action has, so it is checked first.
  const action = nested('action', (): ParsedAction => {
    switch (a.type) {
      case 'light': {
        onlyFields(a, LIGHT_ACTION_FIELDS);
        const light: ParsedAction = { type: 'light', _id: str(a, '_id'), on: bool(a, 'on'), bri: bri(a) };
        // as in scenes: colour is checked against the light's capabilities by the catalog
        if (hasColourFields(a)) light.colourInput = a;
        return light;
      }
      case 'scene':
      case 'group/toggle':
        onlyFields(a, ['type', '_id']);
        return { type: a.type, _id: str(a, '_id') };
      case undefined:
        throw invalid('type is required ("light", "scene" or "group/toggle")');
      default:
        throw invalid('type must be "light", "scene" or "group/toggle"');
    }
  });
  return body.when === undefined
    ? { sensorId, event, action }
    : { sensorId, event, action, when: parseCondition(body.when) };
}
