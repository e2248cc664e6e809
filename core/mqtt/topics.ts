/** Topic name and filter rules of MQTT 3.1.1 §4.7, for the in-process API (aedes checks the wire itself). */
import { HearthError } from '../errors.ts';

/** MQTT 3.1.1 §4.7.3: at least one character, no wildcards, no NUL, at most 65535 bytes. */
export function assertTopicName(topic: string): void {
  if (topic.length === 0) throw new HearthError('mqtt_bad_topic', 'mqtt: a topic name must not be empty');
  if (topic.includes('+') || topic.includes('#')) {
    throw new HearthError('mqtt_bad_topic', `mqtt: a topic name must not contain wildcards: ${topic}`); // [MQTT-3.3.2-2]
  }
  if (topic.includes('\u0000'))
    throw new HearthError('mqtt_bad_topic', 'mqtt: a topic name must not contain NUL');
  if (Buffer.byteLength(topic) > 65535)
    throw new HearthError('mqtt_bad_topic', 'mqtt: a topic name is longer than 65535 bytes');
}

/** MQTT 3.1.1 §4.7.1: `#` only as the whole last level, `+` only as a whole level. */
export function assertTopicFilter(filter: string): void {
  if (filter.length === 0) throw new HearthError('mqtt_bad_topic', 'mqtt: a topic filter must not be empty'); // [MQTT-4.7.3-1]
  if (filter.includes('\u0000'))
    throw new HearthError('mqtt_bad_topic', 'mqtt: a topic filter must not contain NUL');
  const levels = filter.split('/');
  levels.forEach((level, i) => {
    if (level.includes('#') && (level !== '#' || i !== levels.length - 1)) {
      throw new HearthError(
        'mqtt_bad_topic',
        `mqtt: '#' must be the whole last level of a filter: ${filter}`,
      ); // [MQTT-4.7.1-2]
    }
    if (level.includes('+') && level !== '+') {
      throw new HearthError('mqtt_bad_topic', `mqtt: '+' must be a whole level of a filter: ${filter}`); // [MQTT-4.7.1-3]
    }
  });
}

/**
 * Whether `topic` matches `filter`. Topics that start with `$` are not matched by a filter that starts
 * with a wildcard [MQTT-4.7.2-1], so `#` never delivers `$SYS/...`.
 */
export function topicMatches(filter: string, topic: string): boolean {
  if (hidesDollarTopic(filter, topic)) return false;
  const f = filter.split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i++) {
    const level = f[i];
    if (level === '#') return true; // also matches the parent level: `a/#` matches `a` [MQTT-4.7.1-2]
    if (i >= t.length) return false;
    if (level !== '+' && level !== t[i]) return false;
  }
  return f.length === t.length;
}

/**
 * Whether every topic `inner` (a filter or a topic name) can match is matched by `outer` (MQTT 3.1.1 §4.7):
 * a `+` or `#` in `inner` must face a wildcard in `outer`; `a/#` also covers `a`.
 */
export function filterCovers(outer: string, inner: string): boolean {
  if (hidesDollarTopic(outer, inner)) return false;
  const o = outer.split('/');
  const i = inner.split('/');
  for (let n = 0; n < o.length; n++) {
    if (o[n] === '#') return true;
    const level = i[n];
    if (level === undefined || level === '#') return false;
    if (o[n] !== '+' && o[n] !== level) return false;
  }
  return o.length === i.length;
}

/** True when a `$`-topic must be hidden from a filter that starts with a wildcard [MQTT-4.7.2-1]. */
export function hidesDollarTopic(filter: string, topic: string): boolean {
  return topic.charCodeAt(0) === 36 && (filter.charCodeAt(0) === 43 || filter.charCodeAt(0) === 35);
}
