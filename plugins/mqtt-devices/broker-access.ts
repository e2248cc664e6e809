/**
 * Who may use the embedded broker, for the clients this plugin recognises: device credentials (user name
 * + password) and site keys (as the password, for `hearth/<siteid>/#` only, until site tokens replace them
 * — the auth plugin's hook answers for tokens). Everything else is 'pass', so other plugins decide.
 * One site can never reach another's `hearth/<site>/…` topics, not even through a wildcard.
 */
import type { MqttAuthHooks, MqttClientInfo, MqttTopicDecision } from '../../core/mqtt/types.ts';
import type { Credentials } from './credentials.ts';

const KIND = 'mqtt-devices';

interface Identity {
  kind: typeof KIND;
  site: string;
  /** Set for a device credential; absent for a site key. */
  username?: string;
}

const identityOf = (c: MqttClientInfo): Identity | null =>
  c.identity?.kind === KIND ? (c.identity as unknown as Identity) : null;

/**
 * Whether every topic `requested` can match is also matched by `allowed` (MQTT 3.1.1 §4.7): a `+` or
 * `#` in the request must face a wildcard in the allowed filter.
 */
export function filterWithin(allowed: string, requested: string): boolean {
  const a = allowed.split('/');
  const r = requested.split('/');
  for (let i = 0; i < a.length; i++) {
    if (a[i] === '#') return true;
    const level = r[i];
    if (level === undefined || level === '#') return false;
    if (a[i] !== '+' && a[i] !== level) return false;
  }
  return a.length === r.length;
}

/** Whether a topic or filter can reach Hearth's own topics (a leading wildcard matches `hearth/…` too). */
const reachesHearth = (topic: string) =>
  topic === 'hearth' || topic.startsWith('hearth/') || topic.startsWith('#') || topic.startsWith('+');

/** The decision for one topic or filter of a client this plugin authenticated. */
export function decide(id: Identity, topics: string[] | null, topic: string): MqttTopicDecision {
  const own = `hearth/${id.site}/`;
  // [MQTT-4.7.2-1] aside, a leading wildcard would reach every site's topics.
  if (topic.startsWith('#') || topic.startsWith('+')) return 'deny';
  if (topic === 'hearth' || topic.startsWith('hearth/')) return topic.startsWith(own) ? 'allow' : 'deny';
  if (!id.username) return 'deny'; // a site key opens the site's hearth topics, nothing else
  if (topics === null) return 'allow';
  return topics.some((f) => filterWithin(f, topic)) ? 'allow' : 'deny';
}

export function brokerHooks(
  creds: Credentials,
  resolveSiteKey: (key: string) => string | null,
): MqttAuthHooks {
  const check = (client: MqttClientInfo, topic: string): MqttTopicDecision => {
    const id = identityOf(client);
    // An anonymous client (`mqtt.allowAnonymous`) authenticated for no site: it keeps the device topics
    // but never reaches `hearth/<site>/…` (README "Device credentials and the hub broker"). Other plugins' clients carry their own identity.
    if (!id) return client.identity === undefined && reachesHearth(topic) ? 'deny' : 'pass';
    if (!id.username) return decide(id, null, topic);
    // Removing a credential takes effect at the device's next publish or subscribe.
    const c = creds.get(id.username);
    if (!c || c.site !== id.site) return 'deny';
    return decide(id, c.topics, topic);
  };
  return {
    async authenticate(_client, username, password) {
      if (username !== undefined && creds.get(username)) {
        const c = password ? await creds.verify(username, password) : null;
        if (!c) return { allow: false };
        const identity: Identity = { kind: KIND, site: c.site, username: c.username };
        return { allow: true, identity: identity as unknown as Record<string, unknown> };
      }
      const site = password && password.length <= 128 ? resolveSiteKey(password.toString('utf8')) : null;
      if (!site) return 'pass';
      const identity: Identity = { kind: KIND, site };
      return { allow: true, identity: identity as unknown as Record<string, unknown> };
    },
    authorizePublish: check,
    authorizeSubscribe: check,
  };
}
