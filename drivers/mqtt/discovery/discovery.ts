/**
 * Listens to the discovery topics the options enable and turns them into device changes: Home Assistant
 * configs under `<prefix>/#`, Tasmota's `tasmota/discovery/<mac>/config`, zigbee2mqtt's `bridge/devices` (devices missing from a new list are gone)
 * and `bridge/state` (the whole bridge's presence). zigbee2mqtt pairing is opened through
 * `bridge/request/permit_join`.
 */
import type { Logger } from 'pino';
import type { MqttDevice } from '../device.ts';
import type { DeviceSource } from '../device-table.ts';
import type { MqttLink } from '../link.ts';
import type { MqttDriverOptions } from '../options.ts';
import { PayloadError } from '../payload.ts';
import { z2mAvailability } from '../profiles/zigbee2mqtt.ts';
import { HaDiscovery } from './home-assistant.ts';
import { parseTasmotaConfig, TASMOTA_DISCOVERY } from './tasmota.ts';
import { parseBridgeDevices } from './zigbee2mqtt.ts';

export interface DiscoverySink {
  upsert(device: MqttDevice, source: DeviceSource): void;
  gone(protocolid: string): void;
  bridgeOnline(base: string, online: boolean): void;
}

export class Discovery {
  readonly #opts: MqttDriverOptions;
  readonly #log: Logger;
  readonly #sink: DiscoverySink;
  #z2mListed = new Set<string>();

  constructor(opts: MqttDriverOptions, log: Logger, sink: DiscoverySink) {
    this.#opts = opts;
    this.#log = log;
    this.#sink = sink;
  }

  #guard(topic: string, fn: () => void): void {
    try {
      fn();
    } catch (err) {
      if (!(err instanceof PayloadError)) throw err;
      this.#log.warn({ topic, reason: err.message }, 'dropped a bad discovery message');
    }
  }

  async subscribe(link: MqttLink): Promise<void> {
    const prefix = this.#opts.discovery.homeAssistant;
    if (prefix) {
      const ha = new HaDiscovery(prefix, { skipZigbee2mqtt: this.#opts.discovery.zigbee2mqtt });
      await link.subscribe(ha.filter, (topic, payload) =>
        this.#guard(topic, () => {
          const change = ha.handle(topic, payload);
          if (change && 'upsert' in change) this.#sink.upsert(change.upsert, 'homeassistant');
          else if (change) this.#sink.gone(change.remove);
        }),
      );
    }
    if (this.#opts.discovery.tasmota) {
      const known = new Map<string, string>();
      await link.subscribe(TASMOTA_DISCOVERY, (topic, payload) =>
        this.#guard(topic, () => {
          const change = parseTasmotaConfig(topic, payload, known);
          if (change && 'upsert' in change) this.#sink.upsert(change.upsert, 'tasmota');
          else if (change) this.#sink.gone(change.remove);
        }),
      );
    }
    if (this.#opts.discovery.zigbee2mqtt) {
      const base = this.#opts.zigbee2mqttBase;
      await link.subscribe(`${base}/bridge/devices`, (topic, payload) =>
        this.#guard(topic, () => this.#bridgeDevices(payload, base)),
      );
      await link.subscribe(`${base}/bridge/state`, (topic, payload) =>
        this.#guard(topic, () => this.#sink.bridgeOnline(base, z2mAvailability(payload))),
      );
    }
  }

  #bridgeDevices(payload: Buffer, base: string): void {
    const devices = parseBridgeDevices(payload, base);
    const listed = new Set(devices.map((d) => d.protocolid));
    for (const d of devices) this.#sink.upsert(d, 'zigbee2mqtt');
    for (const old of this.#z2mListed) if (!listed.has(old)) this.#sink.gone(old);
    this.#z2mListed = listed;
  }

  /** zigbee2mqtt: `{"value":true,"time":<s>}` opens pairing for that long (docs/mqtt-devices.md#zigbee2mqtt). */
  async permitJoin(link: MqttLink, durationMs: number): Promise<void> {
    if (!this.#opts.discovery.zigbee2mqtt) return;
    const time = Math.max(1, Math.min(254, Math.round(durationMs / 1000)));
    await link.publish(
      `${this.#opts.zigbee2mqttBase}/bridge/request/permit_join`,
      JSON.stringify({ value: true, time }),
    );
  }
}
