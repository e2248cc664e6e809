/**
 * Topics that several devices listen on and that no registry record names: Tasmota's group topics
 * (`cmnd/<GroupTopic>/…`, `tasmotas` out of the box) and its fallback topic (`cmnd/<MqttClient>_fb/…`), a
 * zigbee2mqtt group (`<base>/<group>/set`) and the bridge's requests (`<base>/bridge/request/…`). Which
 * site's devices listen there is known only to the broker: the devices subscribed to them. A site's client
 * may command (or read the commands sent on) such a topic only while no device of another site, or of no
 * site, listens there.
 */
import type { MqttListener } from '../../core/sdk.ts';

/**
 * Whether a topic (or a filter's literal levels) is where devices take commands rather than where they
 * report: a client watching reports is never refused because of who else watches them.
 */
export function isCommandTopic(topic: string, zigbee2mqttBase: string): boolean {
  const levels = topic.split('/');
  // Tasmota, with its default FullTopic `%prefix%/%topic%/`.
  if (levels[0] === 'cmnd') return true;
  if (topic.startsWith(`${zigbee2mqttBase}/bridge/request/`)) return true;
  const last = levels[levels.length - 1];
  // Shelly Gen1 `…/relay/<n>/command`, `shellies/<id>/command`.
  if (last === 'command') return true;
  // Shelly Gen2 `<prefix>/rpc`; `<prefix>/events/rpc` is what it reports.
  if (last === 'rpc' && levels[levels.length - 2] !== 'events') return true;
  // zigbee2mqtt `<name>/set[/<attr>]` and `<name>/get`, Shelly Gen1 lights, Home Assistant lights.
  return levels.slice(1).some((level) => level === 'set' || level === 'get');
}

/**
 * A subscription that names what it listens on (`cmnd/tasmotas/#`, `cmnd/DVES_1A2B3C_fb/#`), or any under
 * zigbee2mqtt's base (the bridge subscribes to `zigbee2mqtt/#` and acts on every group and device under
 * it); not a watcher of a whole namespace (`cmnd/#`, `cmnd/+/POWER`), which would otherwise lock every
 * other site out of it.
 */
function namesWhatItListensOn(filter: string, zigbee2mqttBase: string): boolean {
  if (filter.startsWith(`${zigbee2mqttBase}/`)) return true;
  const [first, second] = filter.split('/');
  const wildcard = (level: string | undefined) => level === undefined || level === '+' || level === '#';
  return !wildcard(first) && !wildcard(second);
}

/** Whether a client that is not of `site` (another site's, or of no site; operators aside) listens there. */
export function othersListen(listeners: MqttListener[], site: string, zigbee2mqttBase: string): boolean {
  return listeners.some(({ client, filters }) => {
    const owner = client.identity?.sessionOwner;
    if (owner === `site:${site}`) return false;
    // An operator's tools (MQTT Explorer on `#`) watch everything and are no device.
    if (typeof owner === 'string' && owner.startsWith('operator:')) return false;
    return filters.some((f) => namesWhatItListensOn(f, zigbee2mqttBase));
  });
}
