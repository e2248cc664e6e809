/**
 * Home Assistant MQTT discovery for Hearth's own topics (when `publishHomeAssistant` is on): each MQTT
 * light of a site as a JSON-schema light on `hearth/<site>/light/<id>/…`, each sensor event as a device
 * trigger on `hearth/<site>/sensor/<id>/action`. Configs are retained (HA's rule) under the node id
 * `hearth_<site>`, which Hearth's own discovery ignores so it never adopts its own announcements.
 */
import type { MqttApi } from '../../core/mqtt/types.ts';
import { topicId } from './hearth-topics.ts';
import type { DeviceRecord } from './registry.ts';

const objectId = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_');

export interface HaConfig {
  topic: string;
  payload: string;
}

export function haConfigs(prefix: string, siteName: string, r: DeviceRecord): HaConfig[] {
  const node = `hearth_${r.site}`;
  const base = `hearth/${r.site}`;
  const id = topicId(r.protocolid);
  const device = { identifiers: [`hearth-${r.site}`], name: `Hearth ${siteName}`, manufacturer: 'Hearth' };
  if (r.device.kind === 'sensor') {
    return (r.device.events ?? []).map((event) => ({
      topic: `${prefix}/device_automation/${node}/${objectId(`${r.protocolid}_${event}`)}/config`,
      payload: JSON.stringify({
        automation_type: 'trigger',
        topic: `${base}/sensor/${id}/action`,
        payload: event,
        type: 'button_short_press',
        subtype: event,
        device,
      }),
    }));
  }
  const dimmable = r.device.kind === 'dimmable';
  return [
    {
      topic: `${prefix}/light/${node}/${objectId(r.protocolid)}/config`,
      payload: JSON.stringify({
        name: r.device.name ?? r.protocolid,
        unique_id: `hearth-${r.site}-${objectId(r.protocolid)}`,
        schema: 'json',
        command_topic: `${base}/light/${id}/set`,
        state_topic: `${base}/light/${id}/state`,
        availability: [{ topic: `${base}/status` }, { topic: `${base}/light/${id}/availability` }],
        availability_mode: 'all',
        brightness: dimmable,
        brightness_scale: 255,
        supported_color_modes: [dimmable ? 'brightness' : 'onoff'],
        device,
      }),
    },
  ];
}

/** Publishes (retained) or withdraws (empty retained payload) a device's configs. */
export async function publishHa(mqtt: MqttApi, configs: HaConfig[], withdraw = false): Promise<void> {
  await Promise.all(configs.map((c) => mqtt.publish(c.topic, withdraw ? '' : c.payload, { retain: true })));
}
