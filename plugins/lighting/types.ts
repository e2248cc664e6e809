/** The lighting domain's records, as stored and as the site API returns them. `_id`s are opaque strings. */

import type { RouteMiddleware } from '../../core/sdk.ts';
import type {
  DriverFactory,
  LightCapabilities,
  LightColour,
  LightingDriver,
  LightLevel,
  LightState,
} from '../../drivers/lighting/index.ts';
import type { ActionCondition } from './domain/conditions.ts';

export type LightType = 'dimmable' | 'binary';

export interface SiteRecord {
  _id: string;
  name: string;
  /** base64url sha256 of the site key; the key itself is never stored (a leaked data file must not leak keys). */
  keyHash: string;
  created: string;
}

/** A light's configuration; its level lives in the state document. */
export interface LightRecord {
  _id: string;
  siteid: string;
  name: string;
  type: LightType;
  vendor: string;
  /** The device address for the driver; exposed on the API as `<vendor>id` (spec). */
  protocolid: string;
  subdef: string | null;
  /** Optional driver instance id when several instances of one vendor serve a site. */
  driver?: string;
  /** Stored (true) only on a light another plugin created from discovery, until the operator accepts it. */
  new?: boolean;
  /** Colour temperature and colour, for lights that have them (README "Colour"). */
  capabilities?: LightCapabilities;
  /** Stored (true) only for a light that is a plug: from its device or set on the light (README "Plugs"). */
  plug?: boolean;
}

/**
 * What the API returns for a light: the record plus the confirmed (reported) level; `new` is always
 * shown (false for lights created on the site API or accepted).
 */
export type LightView = Omit<LightRecord, 'protocolid' | 'new' | 'subdef'> &
  LightLevel & { new: boolean; subdef: string } & Record<string, unknown>;

export interface SceneEntry extends LightColour {
  _id: string;
  on: boolean;
  bri: number;
}

export interface SceneRecord {
  _id: string;
  siteid: string;
  name: string;
  state: SceneEntry[];
  /** Set for a scene a bridge keeps: applied by recalling it there (docs/lighting.md#device-scenes). */
  device?: { driver: string; sceneid: string };
}

export interface GroupRecord {
  _id: string;
  siteid: string;
  name: string;
  lights: string[];
}

/**
 * A light action sets a level and, on a light with colour, what `PUT /light/state` would: the colour is
 * stored as the light will be set to (mirek/xy, clipped), with an optional transition in seconds.
 */
export type LightAction = {
  type: 'light';
  _id: string;
  on: boolean;
  bri: number;
  transition?: number;
} & LightColour;

export type ActionSpec = LightAction | { type: 'scene'; _id: string } | { type: 'group/toggle'; _id: string };

/**
 * An action bound to a sensor event; it has its own id so it can be removed. `when`: it runs only while
 * its conditions hold (docs/lighting.md#action-conditions).
 */
export type ActionRecord = ActionSpec & { actionid: string; when?: ActionCondition };

export interface SensorRecord {
  _id: string;
  siteid: string;
  name: string;
  vendor: string;
  protocolid: string;
  type: string;
  events: string[];
  /** event name → actions run in order when the event fires. */
  actions: Record<string, ActionRecord[]>;
  /** Silent for longer than this, the sensor shows a `silent` warning (docs/lighting.md#sensor-readings). */
  checkInSeconds?: number;
  /** As a light's: stored (true) only on a sensor created from discovery, until accepted. */
  new?: boolean;
}

/** What the API returns for a sensor: the protocol id as `<vendor>id`, `new` always shown. */
export type SensorView = Omit<SensorRecord, 'protocolid' | 'new'> & { new: boolean } & Record<
    string,
    unknown
  >;

/** A light another plugin creates (the fields of `POST /light`; the protocol id as `protocolid`). */
export interface NewLight {
  name: string;
  type: LightType;
  capabilities?: LightCapabilities;
  /** Absent: taken from the driver's device (`DeviceInfo.plug`). */
  plug?: boolean;
  vendor: string;
  protocolid: string;
  subdef?: string;
  driver?: string;
}

/** A sensor another plugin creates (the fields of `POST /sensor`). */
export interface NewSensor {
  name: string;
  vendor: string;
  protocolid: string;
  type: string;
  events?: string[];
  checkInSeconds?: number;
}

export interface ConfigDoc {
  /** Set once the first-start "Home" site was offered, so deleting every site does not bring it back. */
  firstSiteDone?: boolean;
  sites: SiteRecord[];
  lights: LightRecord[];
  scenes: SceneRecord[];
  groups: GroupRecord[];
  sensors: SensorRecord[];
}

/** Per-light levels: `reported` is what the device confirmed, `desired` the last command. */
export interface LevelEntry {
  reported: LightState;
  desired: LightState;
  /** Last non-zero brightness, so a group toggle can bring a light back where it was. */
  lastOnBri: number;
}

export interface StateDoc {
  levels: Record<string, LevelEntry>;
}

export interface SensorEventRecord {
  _id: string;
  name: string;
  event: string;
  at: string;
}

export interface SiteSummary {
  siteid: string;
  name: string;
  created: string;
}

/** What a valid site token grants. */
export interface SiteTokenGrant {
  scopes: string[];
  /** False once the token is revoked or expired: WebSockets opened with it are closed (4001). */
  stillValid?: () => boolean;
}

/**
 * How a request presented its token: the `Authorization` scheme and, for `DPoP`, the proof header with the
 * method and URL it must be made for (RFC 9449 §7.1). The verifier refuses a sender-constrained token
 * presented any other way.
 */
export interface TokenPresentation {
  scheme: 'bearer' | 'dpop';
  proof?: string;
  method: string;
  /** The request URL in the forms a client may have used (an upgrade has an http and a ws form). */
  urls: readonly string[];
}

/** Verifies a site token (installed by the auth plugin). */
export type SiteTokenVerifier = (
  token: string,
  siteId: string,
  how?: TokenPresentation,
) => Promise<SiteTokenGrant | null>;

export interface LightingExports {
  sites: {
    list(): SiteSummary[];
    get(siteId: string): SiteSummary | null;
    /** Site id for a key, or null. Constant-time in the key. */
    resolveKey(key: string): string | null;
  };
  setSiteTokenVerifier(fn: SiteTokenVerifier | null): void;
  /** Closes the site WebSockets whose token is no longer valid (the auth plugin calls it on revocation). */
  revalidateTokenSockets(): number;
  /**
   * Pushes a message to every WebSocket subscriber of the site that may read its state (`lights:read`, or the
   * site key). Returns how many got it.
   */
  broadcast(siteId: string, message: unknown): number;
  registerDriverType(type: string, factory: DriverFactory): void;
  /**
   * For vendors whose devices every site can reach (MQTT): `elsewhere(siteId, protocolid)` says whether the
   * device belongs to another site, and creating or changing a light or sensor of `siteId` to name it is
   * refused with 409. `null` removes the check.
   */
  setDeviceOwnership(
    vendor: string,
    elsewhere: ((siteId: string, protocolid: string) => boolean) | null,
  ): void;
  /**
   * Installed by the plugin that knows a vendor's ids: `problem(protocolid)` says why the id can name no
   * device of that vendor (`tasmota:+`, a Hue id that is no resource id), or null when it can. Creating a
   * light or sensor with such an id, or changing one to it, is refused with 400 naming `<vendor>id`.
   * `null` removes the rule.
   */
  setProtocolIdRule(vendor: string, problem: ((protocolid: string) => string | null) | null): void;
  /**
   * Guards another plugin's route under `/api/site/:key/…` exactly as the site API's own: the site key in
   * the path, or a token for the site id in the path with `scope` (403 without it, 404 `unknown site` for
   * anything else). Puts `{siteId, scopes}` into `ctx.state.site`.
   */
  siteGuard(scope: 'lights:read' | 'site:admin'): RouteMiddleware;
  /** Adds a running driver instance for a site (tests, the MQTT plugin). Resolves once started. */
  addDriver(spec: {
    id: string;
    type: string;
    site: string;
    options?: Record<string, unknown>;
  }): Promise<LightingDriver>;
  removeDriver(id: string): Promise<void>;
  postSensorEvent(siteId: string, sensorId: string, event: string): Promise<void>;
  /**
   * Creates a light as `POST /light` does (same validation, durable commit, `siteChanged` push); with
   * `{new: true}` it is marked new until accepted. Rejects with an `HttpError` (`status` 400 invalid,
   * 404 unknown site, 409 vendor id already used on the site).
   */
  createLight(siteId: string, light: NewLight, opts?: { new?: boolean }): Promise<LightView>;
  /** Creates a sensor as `POST /sensor` does; same rules as `createLight`. */
  createSensor(siteId: string, sensor: NewSensor, opts?: { new?: boolean }): Promise<SensorView>;
  /**
   * Clears the `new` mark of the site's lights and sensors with this vendor id (the device was accepted
   * elsewhere). Emits `lighting.device.accepted` for each one cleared; returns how many.
   */
  acceptDevice(siteId: string, vendor: string, protocolid: string): Promise<number>;
  /** The site's lights as `GET /light` returns them (empty for an unknown site). */
  lights(siteId: string): LightView[];
  /** The site's sensors as `GET /sensor` returns them. */
  sensors(siteId: string): SensorView[];
  /** The site's groups in the site's order (copies); the household app shows them as rooms. */
  groups(siteId: string): GroupRecord[];
  /**
   * Sets a light's level as `PUT /light/state` does (normalised, coalesced per light, handed to its driver)
   * and resolves with its answer once handed over. `'on'` switches it on at its last non-zero level (255 if
   * none). Rejects with an `HttpError`: 404 no such light on the site, 503/502/504 as the route.
   */
  setLightState(siteId: string, lightId: string, level: LightStateRequest | 'on'): Promise<LightStateAnswer>;
  /**
   * Whether the light or sensor can be reached now: the link of the driver instance that serves it is up
   * (false for an unknown id). Changes are announced by `lighting.driver.connection`.
   */
  reachable(siteId: string, id: string): boolean;
  /** Replaces the schedules' clock (tests and simulations drive time by hand). */
  useScheduleClock(clock: import('./schedules/clock.ts').Clock): void;
}

/**
 * A level with the optional colour inputs of `PUT /light/state` (checked and converted as there, 400 naming
 * the field when the light cannot show them). Other plugins' topics send colour without a level
 * (`{"state":"ON","color_temp":300}`), hence the optional `bri`.
 */
export type LightStateRequest = {
  on: boolean;
  /** Absent with `on: true`: the light's last non-zero level (255 if none), as `'on'`. */
  bri?: number;
  ct?: number;
  kelvin?: number;
  xy?: [number, number];
  hex?: string;
  hue?: number;
  sat?: number;
  transition?: number;
};

/** The answer of `PUT /light/state`: the normalised level handed over, and whether the device confirmed it. */
export interface LightStateAnswer extends LightColour {
  _id: string;
  on: boolean;
  bri: number;
  confirmed: boolean;
}

export interface DeviceAccepted {
  siteId: string;
  kind: 'light' | 'sensor';
  _id: string;
  vendor: string;
  protocolid: string;
}

declare module '../../core/plugin/types.ts' {
  interface PluginExportsMap {
    lighting: LightingExports;
  }
}

declare module '../../core/bus/events.ts' {
  interface HearthEvents {
    'lighting.site.created': { siteId: string; name: string };
    'lighting.site.deleted': { siteId: string; name: string };
    /** A light or sensor marked new was accepted (`PUT /light|/sensor {"new": false}` or `acceptDevice`). */
    'lighting.device.accepted': DeviceAccepted;
    /** A light's confirmed (reported) level changed, whatever its driver (README "desired vs reported"). */
    'lighting.light.state': { siteId: string; lightId: string; on: boolean; bri: number } & LightColour;
    /** A sensor event of any vendor (driver report, `POST /sensor/event`, `postSensorEvent`). */
    'lighting.sensor.event': {
      siteId: string;
      sensorId: string;
      name: string;
      vendor: string;
      protocolid: string;
      event: string;
      at: string;
    };
    /** A sensor reported readings that changed (docs/lighting.md#sensor-readings); only the changed ones. */
    'lighting.sensor.readings': {
      siteId: string;
      sensorId: string;
      readings: import('../../drivers/lighting/index.ts').SensorReadings;
      at: string;
    };
    /** A driver instance's link went up or down (the `connection` push). */
    'lighting.driver.connection': { siteId: string; driverId: string; vendor: string; connected: boolean };
    /** The site's configuration changed (lights, scenes, groups, sensors, name): the `siteChanged` push. */
    'lighting.site.changed': { siteId: string };
  }
}
