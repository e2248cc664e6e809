/**
 * What a `hueid` can be: the CLIP v2 id of a light or of a switch or sensor device, or
 * `grouped_light/<id>` for a room or zone (README "Lights, rooms, sensors"). CLIP v2 ids are UUIDs, written
 * in lower case by the bridge.
 */
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const HUE_ID = new RegExp(`^(grouped_light/)?${UUID}$`);

/** Why `protocolid` can name no Hue resource, or null when it can. */
export function hueIdProblem(protocolid: string): string | null {
  return HUE_ID.test(protocolid)
    ? null
    : 'a hueid is a lower-case CLIP v2 id (8-4-4-4-12 hex digits) or grouped_light/<id>';
}
