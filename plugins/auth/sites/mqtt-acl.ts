import type { MqttApi, MqttAuthHooks, MqttClientInfo, MqttTopicDecision } from '../../../core/sdk.ts';
import type { AuthServices } from '../services.ts';
import { own } from '../state/collections.ts';
import { isLive, type VerifyAccessToken } from './verify.ts';

const KIND = 'auth.site-token';
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

interface TokenIdentity {
  kind: typeof KIND;
  siteId: string;
  scopes: string[];
  jti: string;
  exp: number;
  client_id: string;
  sub: string;
  sessionOwner: string;
}

const identityOf = (c: MqttClientInfo): TokenIdentity | null =>
  c.identity?.kind === KIND ? (c.identity as unknown as TokenIdentity) : null;

/** Revoked, expired, or its client suspended or user disabled: the token no longer holds. */
const stillValid = (s: AuthServices, id: TokenIdentity) => id.exp * 1000 > Date.now() && isLive(s, id);

/**
 * Closes the embedded broker's connections made with a token that no longer holds. The ACL hooks refuse its
 * new publishes and subscriptions; only closing the connection stops delivery on subscriptions it already has.
 */
export function dropStaleTokenClients(s: AuthServices, mqtt: MqttApi): number {
  return mqtt.disconnect((c) => {
    const id = identityOf(c);
    return id !== null && !stillValid(s, id);
  });
}

/** The scope a publish needs, from the first topic level under the site (documented in the README). */
export function publishScope(rest: string): string {
  const head = rest.split('/')[0] ?? '';
  if (head === 'sensors' || head === 'sensor' || head === 'buttons') return 'sensors:write';
  if (head === 'scenes' || head === 'scene') return 'scenes:apply';
  if (head === 'lights' || head === 'light' || head === 'groups' || head === 'group') return 'lights:write';
  return 'site:admin';
}

/**
 * Embedded-broker hooks: a site token as the MQTT password lets a client use `hearth/<siteid>/#` within its
 * scopes (subscribe needs lights:read, publish the scope of the topic). Anything that is not a token is left
 * to other plugins ('pass'); a token that fails verification is refused.
 */
export function siteTokenMqttHooks(s: AuthServices, verify: VerifyAccessToken): MqttAuthHooks {
  const underSite = (id: TokenIdentity, topic: string): string | null => {
    const prefix = `hearth/${id.siteId}/`;
    return topic.startsWith(prefix) ? topic.slice(prefix.length) : null;
  };
  return {
    async authenticate(_client, _username, password) {
      const token = password?.toString('utf8') ?? '';
      if (!JWT_SHAPE.test(token)) return 'pass';
      const v = await verify(token);
      const siteId = v ? own(s.data.data.resources, v.resource_id)?.site_id : undefined;
      if (!v || !siteId) return { allow: false };
      const identity: TokenIdentity = {
        kind: KIND,
        siteId,
        scopes: v.scopes,
        jti: v.jti,
        exp: v.exp,
        client_id: v.client_id,
        sub: v.sub,
        // A client id in use by this site may be taken over by this site only (core broker).
        sessionOwner: `site:${siteId}`,
      };
      return { allow: true, identity: identity as unknown as Record<string, unknown> };
    },
    authorizeSubscribe(client, topic): MqttTopicDecision {
      const id = identityOf(client);
      if (!id) return 'pass';
      const rest = underSite(id, topic);
      // Wildcards may not reach above the site (`hearth/+/#` or `#` would leak other sites).
      // Re-checked on every subscribe and publish, not only at CONNECT.
      if (rest === null || !stillValid(s, id) || !id.scopes.includes('lights:read')) return 'deny';
      return 'allow';
    },
    authorizePublish(client, topic): MqttTopicDecision {
      const id = identityOf(client);
      if (!id) return 'pass';
      const rest = underSite(id, topic);
      if (rest === null || !stillValid(s, id)) return 'deny';
      return id.scopes.includes(publishScope(rest)) ? 'allow' : 'deny';
    },
  };
}
