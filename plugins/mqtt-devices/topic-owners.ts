/**
 * Which site a device topic belongs to, for the broker ACLs: the topics of every device in the registry
 * belong to the device's site, whatever its profile; discovery topics belong to the discovery site. Topics
 * of no known device are shared (a device not yet registered or discovered must still reach the broker).
 */
import type { MqttDevice } from '../../drivers/mqtt/device.ts';
import type { DeviceRecord } from './registry.ts';

/**
 * - `sites`: the sites of the devices this topic belongs to (one, unless channels of one device are on
 *   two sites);
 * - `discovery`: read and written by the discovery site only (its discovered devices become its lights);
 * - `announce`: any device may publish (Shelly Gen1 announces itself at every connection), nobody reads;
 * - `broadcast`: any device may listen, nobody publishes (a command to every Shelly Gen1, firmware
 *   updates included);
 * - null: shared.
 */
export type TopicOwner = { sites: ReadonlySet<string> } | 'discovery' | 'announce' | 'broadcast' | null;

export interface OwnerSettings {
  homeAssistantPrefix: string;
  zigbee2mqttBase: string;
}

/** Where a device's topics live: literal prefixes (the topic itself and everything below) and exact topics. */
export function deviceTopics(d: MqttDevice): { prefixes: string[]; exact: string[] } {
  const a = d.address;
  switch (d.profile) {
    case 'tasmota':
      return { prefixes: [`cmnd/${a}`, `stat/${a}`, `tele/${a}`], exact: [] };
    case 'zigbee2mqtt':
    case 'shelly1':
    case 'shelly2':
      return { prefixes: [a], exact: [] };
    case 'ha-json': {
      const ha = d.ha;
      if (!ha) return { prefixes: [], exact: [] };
      const exact = [
        ha.commandTopic,
        ha.stateTopic,
        ha.availabilityTopic,
        ha.brightness?.commandTopic,
        ha.brightness?.stateTopic,
        ...ha.triggers.map((t) => t.topic),
      ];
      return { prefixes: [], exact: exact.filter((t): t is string => typeof t === 'string') };
    }
  }
}

const add = (map: Map<string, Set<string>>, key: string, site: string) => {
  const sites = map.get(key);
  if (sites) sites.add(site);
  else map.set(key, new Set([site]));
};

export class TopicOwners {
  #prefixes = new Map<string, Set<string>>();
  #exact = new Map<string, Set<string>>();
  #version = -1;

  constructor(
    private readonly devices: { all(): DeviceRecord[]; readonly version: number },
    private readonly settings: OwnerSettings,
  ) {}

  /** The registry's version counter: changes with every device added, moved, changed or removed. */
  get version(): number {
    return this.devices.version;
  }

  /** Rebuilt when the registry changed: a few hundred devices, and the lookups happen per message. */
  #refresh(): void {
    if (this.#version === this.devices.version) return;
    this.#version = this.devices.version;
    this.#prefixes = new Map();
    this.#exact = new Map();
    for (const r of this.devices.all()) {
      const { prefixes, exact } = deviceTopics(r.device);
      for (const p of prefixes) add(this.#prefixes, p, r.site);
      for (const t of exact) add(this.#exact, t, r.site);
    }
  }

  /** The owner of a topic name (no wildcards). */
  ofTopic(topic: string): TopicOwner {
    this.#refresh();
    const exact = this.#exact.get(topic);
    if (exact) return { sites: exact };
    return this.#ofPrefix(topic) ?? this.#namespace(topic);
  }

  /**
   * The owner of everything a filter can match, when one owner covers it all (its levels before the first
   * wildcard lie inside one device's or one discovery namespace's topics); else null, and each message is
   * checked on delivery.
   */
  ofFilter(filter: string): TopicOwner {
    const wildcard = filter.search(/[+#]/);
    if (wildcard === -1) return this.ofTopic(filter);
    this.#refresh();
    // `a/b/#` → `a/b`; `a/+/c` → `a`.
    const literal = filter.slice(0, Math.max(0, wildcard - 1));
    if (literal === '') return null;
    const owner = this.#ofPrefix(literal);
    if (owner) return owner;
    const ns = this.#namespace(literal);
    // The Home Assistant prefix also holds each site's own Hearth configs: decided per message.
    return ns === 'discovery' && this.#isHomeAssistant(literal) ? null : ns;
  }

  /** The longest device prefix `topic` lies in, at level boundaries. */
  #ofPrefix(topic: string): TopicOwner {
    let end = topic.length;
    while (end > 0) {
      const sites = this.#prefixes.get(end === topic.length ? topic : topic.slice(0, end));
      if (sites) return { sites };
      end = topic.lastIndexOf('/', end - 1);
    }
    return null;
  }

  #isHomeAssistant(topic: string): boolean {
    const ha = this.settings.homeAssistantPrefix;
    return topic === ha || topic.startsWith(`${ha}/`);
  }

  #namespace(topic: string): TopicOwner {
    if (this.#isHomeAssistant(topic)) {
      // Hearth announces each site's lights under `<prefix>/<component>/hearth_<site>/…`.
      const node = topic.split('/', 3)[2];
      if (node?.startsWith('hearth_')) return { sites: new Set([node.slice('hearth_'.length)]) };
      return 'discovery';
    }
    const bridge = `${this.settings.zigbee2mqttBase}/bridge`;
    if (within(topic, 'tasmota/discovery') || within(topic, bridge)) return 'discovery';
    if (topic === 'shellies/announce') return 'announce';
    if (topic === 'shellies/command') return 'broadcast';
    return null;
  }
}

const within = (topic: string, root: string) => topic === root || topic.startsWith(`${root}/`);
