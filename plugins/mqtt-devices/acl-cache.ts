/**
 * The broker ACL's decisions remembered per connection and topic. A device publishes to the same few
 * topics thousands of times, and each decision reads the credentials, the registry's topic owners and the
 * credential's filters; once known it is one map lookup per message.
 *
 * A decision stays valid only while what it was made from is unchanged: every entry of every connection is
 * dropped when the credentials document or the device registry changes (a revoked credential, a device
 * moved to another site or a credential re-created elsewhere loses access at its next message). Decisions
 * that depend on something else that changes at any moment — who listens on a shared command topic, which
 * site is the discovery site — are never stored (`Note`). Each connection keeps at most `MAX_TOPICS`
 * topics per action; past that its map is emptied and fills again (a client walking through many topics
 * costs what it cost before the cache, never unbounded memory). Entries go with the connection's identity
 * object (a WeakMap): nothing outlives the connection.
 */
import type { MqttTopicDecision } from '../../core/sdk.ts';

export type CachedAction = 'publish' | 'subscribe' | 'deliver';

/** Set while deciding when the decision read something that may change without a version bump. */
export interface Note {
  volatile: boolean;
}

export const MAX_TOPICS = 256;

interface Decisions {
  epoch: number;
  publish: Map<string, MqttTopicDecision>;
  subscribe: Map<string, MqttTopicDecision>;
  deliver: Map<string, MqttTopicDecision>;
}

export class AclCache {
  readonly #byIdentity = new WeakMap<object, Decisions>();
  readonly #versions: () => number;
  #seen = Number.NaN;
  #epoch = 0;

  /**
   * `versions`: a number that changes whenever anything a stored decision rests on changes (the sum of
   * the credentials' and the registry's version counters: both only grow).
   */
  constructor(versions: () => number) {
    this.#versions = versions;
  }

  get(identity: object, action: CachedAction, topic: string): MqttTopicDecision | undefined {
    const d = this.#byIdentity.get(identity);
    if (d === undefined || d.epoch !== this.#current()) return undefined;
    return d[action].get(topic);
  }

  set(identity: object, action: CachedAction, topic: string, decision: MqttTopicDecision): void {
    const epoch = this.#current();
    let d = this.#byIdentity.get(identity);
    if (d === undefined || d.epoch !== epoch) {
      d = { epoch, publish: new Map(), subscribe: new Map(), deliver: new Map() };
      this.#byIdentity.set(identity, d);
    }
    const map = d[action];
    if (map.size >= MAX_TOPICS) map.clear();
    map.set(topic, decision);
  }

  #current(): number {
    const v = this.#versions();
    if (v !== this.#seen) {
      this.#seen = v;
      this.#epoch += 1;
    }
    return this.#epoch;
  }
}
