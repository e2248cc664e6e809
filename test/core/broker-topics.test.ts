import { describe, expect, it } from 'vitest';
import { assertTopicFilter, assertTopicName, topicMatches } from '../../core/mqtt/topics.ts';

// The external mode dispatches messages to plugin handlers with these rules (MQTT 3.1.1 §4.7).
describe('topic filters (MQTT 3.1.1 §4.7)', () => {
  it.each([
    ['sport/tennis/player1/#', 'sport/tennis/player1', true], // `#` includes the parent level
    ['sport/tennis/player1/#', 'sport/tennis/player1/ranking', true],
    ['sport/tennis/player1/#', 'sport/tennis/player1/score/wimbledon', true],
    ['sport/#', 'sport', true],
    ['#', 'anything/at/all', true],
    ['sport/tennis/+', 'sport/tennis/player1', true],
    ['sport/tennis/+', 'sport/tennis/player1/ranking', false],
    ['sport/+', 'sport', false],
    ['sport/+', 'sport/', true], // an empty level is a level
    ['+/+', '/finance', true],
    ['/+', '/finance', true],
    ['+', '/finance', false],
    ['a/b', 'a/b', true],
    ['a/b', 'a/B', false], // case-sensitive
    ['#', '$SYS/broker/uptime', false], // [MQTT-4.7.2-1]
    ['+/monitor/Clients', '$SYS/monitor/Clients', false],
    ['$SYS/#', '$SYS/monitor/Clients', true],
    ['$SYS/monitor/+', '$SYS/monitor/Clients', true],
  ])('%s matches %s: %s', (filter, topic, expected) => {
    expect(topicMatches(filter, topic)).toBe(expected);
  });

  it.each(['sport/tennis#', 'sport/tennis/#/ranking', 'sport+', 'a/+b', ''])(
    'rejects the filter %j',
    (filter) => {
      expect(() => assertTopicFilter(filter)).toThrow(expect.objectContaining({ code: 'mqtt_bad_topic' }));
    },
  );

  it.each(['#', '+', 'a/+/b', 'a/#', '/'])('accepts the filter %j', (filter) => {
    expect(() => assertTopicFilter(filter)).not.toThrow();
  });

  it.each(['a/+', 'a/#', '', 'nul\u0000'])('rejects the topic name %j', (topic) => {
    expect(() => assertTopicName(topic)).toThrow(expect.objectContaining({ code: 'mqtt_bad_topic' }));
  });
});
