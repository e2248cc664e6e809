/**
 * Who may use the embedded broker, for the clients this plugin recognises: device credentials (user name
 * + password), operator credentials, and site keys (as the password, for `hearth/<siteid>/#` only, until
 * site tokens replace them — the auth plugin's hook answers for tokens). Everything else is 'pass', so
 * other plugins decide.
 *
 * A site's credential reaches only its own site: `hearth/<site>/…`, the topics of its site's devices
 * (whatever their profile, `TopicOwners`), the discovery topics when it is the discovery site, and topics
 * of no known device — except a command topic that a device of another site (or of no site) listens on,
 * such as a Tasmota group topic (`shared-listeners.ts`). A wildcard subscription is granted when it can
 * match topics the client may read; each message is then checked on delivery, so `stat/#` carries only
 * the client's own site's devices.
 */
import type { MqttAuthHooks, MqttClientInfo, MqttListener, MqttTopicDecision } from '../../core/sdk.ts';
import { AclCache, type Note } from './acl-cache.ts';
import type { Credentials, OperatorAccess } from './credentials.ts';
import { isCommandTopic, othersListen } from './shared-listeners.ts';
import type { TopicOwner, TopicOwners } from './topic-owners.ts';

const KIND = 'mqtt-devices';

interface Identity {
  kind: typeof KIND;
  /** Absent for an operator. */
  site?: string;
  /** Set for a credential; absent for a site key. */
  username?: string;
  operator?: OperatorAccess;
  /** Who may take over this client's id (core `MqttClientInfo.identity`): the same site, or this operator. */
  sessionOwner: string;
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

export type Action = 'publish' | 'subscribe' | 'deliver';

/** Whether a client of `site` may do `action` on a topic of this owner. */
export function ownerAllows(
  owner: TopicOwner,
  site: string,
  discoverySite: () => string | null,
  action: Action,
  note?: Note,
): boolean {
  if (owner === null) return true;
  if (owner === 'discovery') {
    // The discovery site is a setting and a site name: it may change without the registry changing.
    if (note) note.volatile = true;
    return site === discoverySite();
  }
  if (owner === 'announce') return action === 'publish';
  if (owner === 'broadcast') return action !== 'publish';
  return owner.sites.has(site);
}

export interface SiteScope {
  owners: Pick<TopicOwners, 'ofTopic' | 'ofFilter' | 'version'>;
  /** The site whose lights discovered devices become; null when discovery is off. */
  discoverySite(): string | null;
  /** The broker's clients whose subscriptions cover a topic or filter (core `MqttApi.listeners`). */
  listeners(filter: string): MqttListener[];
  zigbee2mqttBase: string;
}

/**
 * A shared command topic (no registry record owns it, or only the discovery namespace does) that a device
 * of another site or of no site listens on: a group or fallback topic of that site's devices, or its
 * zigbee2mqtt bridge.
 */
function othersDevicesListen(
  owner: TopicOwner,
  site: string,
  topic: string,
  scope: SiteScope,
  note?: Note,
): boolean {
  if (owner !== null && owner !== 'discovery') return false;
  if (!isCommandTopic(topic, scope.zigbee2mqttBase)) return false;
  // Who listens changes with every SUBSCRIBE and disconnection: asked again each time.
  if (note) note.volatile = true;
  return othersListen(scope.listeners(topic), site, scope.zigbee2mqttBase);
}

/** The decision for one topic or filter of a client this plugin authenticated for a site. */
export function decide(
  id: { site: string; username?: string },
  topics: string[] | null,
  topic: string,
  scope: SiteScope,
  action: Exclude<Action, 'deliver'>,
  note?: Note,
): MqttTopicDecision {
  const own = `hearth/${id.site}/`;
  // `$SYS/…` lists every client of every site; `$` topics are the broker's own.
  if (topic.startsWith('$')) return 'deny';
  // [MQTT-4.7.2-1] aside, a leading wildcard would reach every site's topics.
  if (topic.startsWith('#') || topic.startsWith('+')) return 'deny';
  if (topic === 'hearth' || topic.startsWith('hearth/')) return topic.startsWith(own) ? 'allow' : 'deny';
  if (!id.username) return 'deny'; // a site key opens the site's hearth topics, nothing else
  if (topics !== null && !topics.some((f) => filterWithin(f, topic))) return 'deny';
  const owner = action === 'publish' ? scope.owners.ofTopic(topic) : scope.owners.ofFilter(topic);
  if (ownerAllows(owner, id.site, scope.discoverySite, action, note))
    return othersDevicesListen(owner, id.site, topic, scope, note) ? 'deny' : 'allow';
  // Tasmota, ESPHome and zigbee2mqtt announce themselves at every connection: on a site that is not the
  // discovery site the announcement is acknowledged and goes nowhere, so the device keeps its connection.
  // A request to the bridge (`zigbee2mqtt/bridge/request/…`) is no announcement: refused.
  const announcement = owner === 'discovery' && !isCommandTopic(topic, scope.zigbee2mqttBase);
  return announcement && action === 'publish' ? 'drop' : 'deny';
}

export interface AccessLog {
  info(obj: Record<string, unknown>, msg: string): void;
}

export function brokerHooks(
  creds: Credentials,
  resolveSiteKey: (key: string) => string | null,
  scope: SiteScope,
  log: AccessLog,
): MqttAuthHooks {
  // Decisions per connection and topic, dropped whenever the credentials or the registry change.
  const cache = new AclCache(() => creds.version + scope.owners.version);
  const note: Note = { volatile: false };
  const decideFor = (id: Identity, topic: string, action: Exclude<Action, 'deliver'>): MqttTopicDecision => {
    if (id.operator) {
      // Removing the credential takes effect at the next publish or subscribe, as for devices.
      const c = id.username ? creds.get(id.username) : undefined;
      if (!c?.operator) return 'deny';
      return action === 'subscribe' || c.operator === 'readwrite' ? 'allow' : 'deny';
    }
    if (id.site === undefined) return 'deny';
    if (!id.username) return decide({ site: id.site }, null, topic, scope, action, note);
    // Removing a credential takes effect at the device's next publish or subscribe.
    const c = creds.get(id.username);
    if (!c || c.site !== id.site) return 'deny';
    return decide({ site: id.site, username: id.username }, c.topics, topic, scope, action, note);
  };
  const check =
    (action: Exclude<Action, 'deliver'>) =>
    (client: MqttClientInfo, topic: string): MqttTopicDecision => {
      const id = identityOf(client);
      // An anonymous client (`mqtt.allowAnonymous`) authenticated for no site: it keeps the shared device
      // topics but never reaches `hearth/<site>/…` nor `$SYS/…` (other clients' ids). Other plugins'
      // clients carry their own identity.
      if (!id)
        return client.identity === undefined && (reachesHearth(topic) || topic.startsWith('$'))
          ? 'deny'
          : 'pass';
      const known = cache.get(id, action, topic);
      if (known !== undefined) return known;
      note.volatile = false;
      const decision = decideFor(id, topic, action);
      if (!note.volatile) cache.set(id, action, topic, decision);
      return decision;
    };
  return {
    async authenticate(client, username, password) {
      if (username !== undefined && creds.get(username)) {
        const c = password ? await creds.verify(username, password) : null;
        if (!c) return { allow: false };
        if (c.operator) {
          log.info(
            {
              audit: 'mqtt.operator.connected',
              username: c.username,
              clientId: client.id,
              access: c.operator,
            },
            'MQTT operator connected',
          );
          const identity: Identity = {
            kind: KIND,
            username: c.username,
            operator: c.operator,
            sessionOwner: `operator:${c.username}`,
          };
          return { allow: true, identity: identity as unknown as Record<string, unknown> };
        }
        if (c.site === null) return { allow: false };
        const identity: Identity = {
          kind: KIND,
          site: c.site,
          username: c.username,
          sessionOwner: `site:${c.site}`,
        };
        return { allow: true, identity: identity as unknown as Record<string, unknown> };
      }
      const site = password && password.length <= 128 ? resolveSiteKey(password.toString('utf8')) : null;
      if (!site) return 'pass';
      const identity: Identity = { kind: KIND, site, sessionOwner: `site:${site}` };
      return { allow: true, identity: identity as unknown as Record<string, unknown> };
    },
    authorizePublish: check('publish'),
    authorizeSubscribe: check('subscribe'),
    // A wildcard granted once (`stat/#`, `zigbee2mqtt/+`) carries only the topics of the client's own site.
    authorizeDelivery(client, topic) {
      const id = identityOf(client);
      if (!id?.username || id.operator || id.site === undefined) return 'pass';
      const known = cache.get(id, 'deliver', topic);
      if (known !== undefined) return known;
      note.volatile = false;
      const owner = scope.owners.ofTopic(topic);
      // `cmnd/+/POWER` carries no command sent to another site's group topic.
      const decision =
        !ownerAllows(owner, id.site, scope.discoverySite, 'deliver', note) ||
        othersDevicesListen(owner, id.site, topic, scope, note)
          ? 'deny'
          : 'pass';
      if (!note.volatile) cache.set(id, 'deliver', topic, decision);
      return decision;
    },
  };
}
