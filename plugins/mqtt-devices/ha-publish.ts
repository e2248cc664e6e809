/**
 * Home Assistant MQTT discovery for Hearth's own topics (when `publishHomeAssistant` is on): every light of
 * a site, whatever its vendor, as a JSON-schema light on `hearth/<site>/light/<_id>/…`, and each sensor
 * event as a device trigger on `hearth/<site>/sensor/<_id>/action`. Configs are retained (HA's rule) under
 * the node id `hearth_<site>`, which Hearth's own discovery ignores so it never adopts its own announcements.
 * What was published is remembered per site, so a deleted light's config is withdrawn and an unchanged one
 * is not sent again. Configs the broker still retains from before (a light deleted while an external broker
 * was unreachable or the hub stopped, a site deleted meanwhile) are read back and withdrawn too.
 */
import type { Logger } from 'pino';
import type { MqttApi } from '../../core/sdk.ts';
import type { LightCapabilities } from '../../drivers/lighting/index.ts';
import type { LightView, SensorView } from '../lighting/types.ts';
import { topicId } from './hearth-topics.ts';

const objectId = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_');

export interface HaConfig {
  topic: string;
  payload: string;
}

export interface HaSite {
  site: string;
  siteName: string;
  lights: LightView[];
  sensors: SensorView[];
}

/**
 * HA JSON schema: `supported_color_modes` lists `color_temp` and `xy` for a light with them (then
 * `brightness`/`onoff` must not be listed), with the light's mired range; otherwise `brightness` or `onoff`.
 */
function colourModes(light: LightView, dimmable: boolean): Record<string, unknown> {
  const caps = light.capabilities as LightCapabilities | undefined;
  const modes = [...(caps?.ct ? ['color_temp'] : []), ...(caps?.xy ? ['xy'] : [])];
  if (!modes.length) return { supported_color_modes: [dimmable ? 'brightness' : 'onoff'] };
  return {
    supported_color_modes: modes,
    ...(caps?.ct ? { min_mireds: caps.ct.min, max_mireds: caps.ct.max } : {}),
  };
}

export function haConfigs(prefix: string, s: HaSite): HaConfig[] {
  const node = `hearth_${s.site}`;
  const base = `hearth/${s.site}`;
  const device = { identifiers: [`hearth-${s.site}`], name: `Hearth ${s.siteName}`, manufacturer: 'Hearth' };
  const triggers = s.sensors.flatMap((sensor) =>
    sensor.events.map((event) => ({
      topic: `${prefix}/device_automation/${node}/${objectId(`${sensor._id}_${event}`)}/config`,
      payload: JSON.stringify({
        automation_type: 'trigger',
        topic: `${base}/sensor/${topicId(sensor._id)}/action`,
        payload: event,
        type: 'button_short_press',
        subtype: event,
        device,
      }),
    })),
  );
  const lights = s.lights.map((light) => {
    const id = topicId(light._id);
    const dimmable = light.type === 'dimmable';
    // Only MQTT lights have a presence of their own (their device's); the others follow Hearth's status.
    const availability = [
      { topic: `${base}/status` },
      ...(light.vendor === 'mqtt' ? [{ topic: `${base}/light/${id}/availability` }] : []),
    ];
    return {
      topic: `${prefix}/light/${node}/${objectId(light._id)}/config`,
      payload: JSON.stringify({
        name: light.name,
        unique_id: `hearth-${s.site}-${objectId(light._id)}`,
        schema: 'json',
        command_topic: `${base}/light/${id}/set`,
        state_topic: `${base}/light/${id}/state`,
        availability,
        availability_mode: 'all',
        brightness: dimmable,
        brightness_scale: 255,
        ...colourModes(light, dimmable),
        device,
      }),
    };
  });
  return [...lights, ...triggers];
}

export class HaPublisher {
  readonly #mqtt: MqttApi;
  readonly #prefix: string;
  readonly #log: Logger;
  /** site → topic → payload last published (retained). */
  readonly #published = new Map<string, Map<string, string>>();
  /** Retained configs read back for sites not synced yet: site → topics. */
  readonly #found = new Map<string, Set<string>>();

  constructor(mqtt: MqttApi, prefix: string, log: Logger) {
    this.#mqtt = mqtt;
    this.#prefix = prefix;
    this.#log = log;
  }

  #send(topic: string, payload: string): void {
    this.#mqtt
      .publish(topic, payload, { retain: true })
      .catch((err: unknown) => this.#log.warn({ err, topic }, 'Home Assistant discovery not published'));
  }

  /** Publishes the site's new and changed configs and withdraws (empty retained) those that went away. */
  sync(s: HaSite): void {
    const before = this.#published.get(s.site) ?? new Map<string, string>();
    const next = new Map(haConfigs(this.#prefix, s).map((c) => [c.topic, c.payload]));
    for (const topic of before.keys()) if (!next.has(topic)) this.#send(topic, '');
    for (const topic of this.#found.get(s.site) ?? []) if (!next.has(topic)) this.#send(topic, '');
    this.#found.delete(s.site);
    for (const [topic, payload] of next) if (before.get(topic) !== payload) this.#send(topic, payload);
    this.#published.set(s.site, next);
  }

  /**
   * Reads back Hearth's own retained configs (every subscription, and every resubscription after a
   * reconnect, replays them) and withdraws those no current light or sensor stands for. `siteExists` tells
   * the configs of a deleted site.
   */
  watchRetained(siteExists: (site: string) => boolean): Promise<() => Promise<void>> {
    return this.#mqtt.subscribe(`${this.#prefix}/+/+/+/config`, (msg) => {
      if (!msg.retain || msg.payload.length === 0) return;
      const node = msg.topic.slice(this.#prefix.length + 1).split('/')[1] ?? '';
      if (!node.startsWith('hearth_')) return;
      const site = node.slice('hearth_'.length);
      const published = this.#published.get(site);
      if (!siteExists(site) || (published && !published.has(msg.topic))) this.#send(msg.topic, '');
      else if (!published) this.#found.set(site, (this.#found.get(site) ?? new Set()).add(msg.topic));
    });
  }

  /** Withdraws every config of a deleted site. */
  withdrawSite(site: string): void {
    for (const topic of this.#published.get(site)?.keys() ?? []) this.#send(topic, '');
    this.#published.delete(site);
  }

  /** The broker lost its retained messages (restart): everything is sent again at the next sync. */
  forgetPublished(): void {
    this.#published.clear();
  }
}
