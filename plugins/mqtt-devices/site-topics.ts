/**
 * Every light and sensor of every site on Hearth's own topics, whatever its vendor (Hearth
 * publishes each light's state (retained) and every sensor event under hearth/<site>/…, README "Hearth's own topics"): lighting's bus
 * events feed the topics, lighting's `setLightState` takes the commands (hearth-topics.ts). Keyed by the
 * lighting `_id`. MQTT lights also get their device's presence on `…/availability`.
 */
import type { LightState, Xy } from '../../drivers/lighting/index.ts';
import type { LightingExports, LightView } from '../lighting/types.ts';
import type { HaPublisher } from './ha-publish.ts';
import type { HearthTopics } from './hearth-topics.ts';
import type { Registry } from './registry.ts';

/** A light's state as the site API shows it: the level and, for a light with colour, its colour. */
function stateOf(l: LightView): LightState {
  const s: LightState = { on: l.on, bri: l.bri };
  if (typeof l.ct === 'number') s.ct = l.ct;
  if (Array.isArray(l.xy)) s.xy = l.xy as unknown as Xy;
  if (l.colormode === 'ct' || l.colormode === 'xy') s.colormode = l.colormode;
  return s;
}

export class SiteTopics {
  readonly #lighting: LightingExports;
  readonly #registry: Registry;
  readonly #topics: HearthTopics;
  readonly #ha: HaPublisher | null;
  /** site → ids of the lights whose retained topics are out, so a deleted light's can be withdrawn. */
  readonly #known = new Map<string, Set<string>>();

  constructor(lighting: LightingExports, registry: Registry, topics: HearthTopics, ha: HaPublisher | null) {
    this.#lighting = lighting;
    this.#registry = registry;
    this.#topics = topics;
    this.#ha = ha;
  }

  /** A confirmed level (lighting's `lighting.light.state`). */
  state(site: string, lightId: string, level: LightState): void {
    this.#topics.state(site, lightId, level);
  }

  /** A sensor event of any vendor (lighting's `lighting.sensor.event`). */
  event(site: string, sensorId: string, event: string): void {
    this.#topics.event(site, sensorId, event);
  }

  #availability(site: string, light: LightView): void {
    const r = light.vendor === 'mqtt' ? this.#registry.get(String(light.mqttid)) : undefined;
    if (r && r.site === site && (r.available !== null || r.gone))
      this.#topics.availability(site, light._id, r.available === true && !r.gone);
  }

  /**
   * After a configuration change (and at start): retained state and availability for lights not seen
   * before, withdrawal for deleted ones, and the Home Assistant configs brought in step.
   */
  sync(site: string): void {
    const lights = this.#lighting.lights(site);
    const before = this.#known.get(site) ?? new Set<string>();
    const now = new Set(lights.map((l) => l._id));
    for (const id of before) if (!now.has(id)) this.#topics.forget(site, id);
    for (const l of lights) {
      if (before.has(l._id)) continue;
      this.#topics.state(site, l._id, stateOf(l));
      this.#availability(site, l);
    }
    this.#known.set(site, now);
    this.#ha?.sync({
      site,
      siteName: this.#lighting.sites.get(site)?.name ?? site,
      lights,
      sensors: this.#lighting.sensors(site),
    });
  }

  /** The presence of an MQTT device, for the site's lights it drives. */
  device(site: string, protocolid: string, online: boolean): void {
    for (const l of this.#lighting.lights(site))
      if (l.vendor === 'mqtt' && l.mqttid === protocolid) this.#topics.availability(site, l._id, online);
  }

  /** Retained messages are lost with the embedded broker (docs/mqtt-devices.md#the-embedded-broker): everything is sent again. */
  republish(): void {
    this.#known.clear();
    this.#ha?.forgetPublished();
    for (const s of this.#lighting.sites.list()) this.sync(s.siteid);
  }

  siteDeleted(site: string): void {
    for (const id of this.#known.get(site) ?? []) this.#topics.forget(site, id);
    this.#known.delete(site);
    this.#ha?.withdrawSite(site);
  }
}
