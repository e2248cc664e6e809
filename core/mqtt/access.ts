import type { Logger } from 'pino';
import type { MqttAuthHooks, MqttClientInfo, MqttTopicDecision } from './types.ts';

/** What the broker knows about a connected client once authentication has run. */
export interface ClientState {
  info: MqttClientInfo;
  /** True when a plugin accepted the client; false when it got in because anonymous access is allowed. */
  authenticated: boolean;
}

/** CONNACK return codes of MQTT 3.1.1 §3.2.2.3 (Table 3.1) that the broker uses to refuse a client. */
export const ConnackCode = {
  identifierRejected: 2,
  serverUnavailable: 3,
  badUsernameOrPassword: 4,
  notAuthorized: 5,
} as const;

export type AuthOutcome = { ok: true; state: ClientState } | { ok: false; returnCode: 2 | 3 | 4 | 5 };

type TopicHook = 'authorizePublish' | 'authorizeSubscribe';

/** true = allowed, false = denied, 'drop' = a PUBLISH acknowledged and delivered to nobody. */
export type Verdict = boolean | 'drop';
const verdict = (d: Exclude<MqttTopicDecision, 'pass'>): Verdict => (d === 'drop' ? 'drop' : d === 'allow');

interface Entry {
  owner: string;
  hooks: MqttAuthHooks;
}

function isThenable<T>(value: unknown): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | null)?.then === 'function';
}

/**
 * The plugins' authentication and ACL hooks, asked in registration order: the first answer other than
 * 'pass' decides. Topic checks stay synchronous while every hook answers synchronously, so the
 * per-message cost with no ACL hooks is one loop over an empty list.
 */
export class HookChain {
  readonly #entries: Entry[] = [];
  readonly #allowAnonymous: boolean;
  readonly #log: Logger;

  readonly #opened: Promise<unknown> | undefined;

  /** `opened`: authentication waits for it (the plugins that register hooks have started). */
  constructor(allowAnonymous: boolean, log: Logger, opened?: Promise<unknown>) {
    this.#allowAnonymous = allowAnonymous;
    this.#log = log;
    this.#opened = opened?.catch(() => {});
  }

  add(owner: string, hooks: MqttAuthHooks): void {
    this.#entries.push({ owner, hooks });
    this.#refresh();
  }

  removeOwner(owner: string): void {
    for (let i = this.#entries.length - 1; i >= 0; i--) {
      if (this.#entries[i]?.owner === owner) this.#entries.splice(i, 1);
    }
    this.#refresh();
  }

  /** Whether any plugin asks about deliveries (else the broker skips the call per message). */
  checksDeliveries = false;

  #refresh(): void {
    this.checksDeliveries = this.#entries.some((e) => e.hooks.authorizeDelivery !== undefined);
  }

  /** Runs the authenticators; a throwing hook refuses the client with "server unavailable" (fail closed). */
  async authenticate(clientId: string, username: string | undefined, password: Buffer | undefined) {
    // While the hub starts, the hooks that know this client may not be registered yet: wait, don't refuse.
    if (this.#opened) await this.#opened;
    const info: MqttClientInfo = username === undefined ? { id: clientId } : { id: clientId, username };
    // MQTT 3.1.1 §3.2.2.3: 4 = bad user name or password (credentials presented), 5 = not authorized.
    const presented = username !== undefined || password !== undefined;
    const refusal = presented ? 4 : 5;
    // [MQTT-3.1.2-22]: no password without a user name.
    if (username === undefined && password !== undefined)
      return { ok: false, returnCode: ConnackCode.badUsernameOrPassword } satisfies AuthOutcome;
    for (const { owner, hooks } of [...this.#entries]) {
      if (!hooks.authenticate) continue;
      let decision: Awaited<ReturnType<NonNullable<MqttAuthHooks['authenticate']>>>;
      try {
        decision = await hooks.authenticate(info, username, password);
      } catch (err) {
        this.#log.error({ err, owner, clientId }, 'mqtt authenticate hook threw; refusing the client');
        return { ok: false, returnCode: ConnackCode.serverUnavailable } satisfies AuthOutcome;
      }
      if (decision === 'pass') continue;
      if (!decision.allow) return { ok: false, returnCode: refusal } satisfies AuthOutcome;
      if (decision.identity !== undefined) info.identity = decision.identity;
      return { ok: true, state: { info, authenticated: true } } satisfies AuthOutcome;
    }
    // Credentials nobody recognised are wrong credentials, never a way in as anonymous.
    if (this.#allowAnonymous && !presented)
      return { ok: true, state: { info, authenticated: false } } satisfies AuthOutcome;
    return { ok: false, returnCode: refusal } satisfies AuthOutcome;
  }

  /** true = allowed. Returns a plain boolean when no hook answered with a promise. */
  authorize(kind: TopicHook, state: ClientState, topic: string): Verdict | Promise<Verdict> {
    const entries = this.#entries;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      const hook = entry.hooks[kind];
      if (!hook) continue;
      let decision: MqttTopicDecision | Promise<MqttTopicDecision>;
      try {
        decision = hook.call(entry.hooks, state.info, topic);
      } catch (err) {
        return this.#threw(kind, entry.owner, state, err);
      }
      if (isThenable<MqttTopicDecision>(decision)) {
        return this.#authorizeAsync(kind, state, topic, i, decision);
      }
      if (decision !== 'pass') return verdict(decision);
    }
    return this.#fallback(state);
  }

  async #authorizeAsync(
    kind: TopicHook,
    state: ClientState,
    topic: string,
    from: number,
    pending: PromiseLike<MqttTopicDecision>,
  ): Promise<Verdict> {
    // A snapshot: a plugin that stops meanwhile must not shift the indexes under us.
    const entries = this.#entries.slice(from);
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      const hook = entry.hooks[kind];
      if (!hook) continue;
      let decision: MqttTopicDecision;
      try {
        decision = i === 0 ? await pending : await hook.call(entry.hooks, state.info, topic);
      } catch (err) {
        return this.#threw(kind, entry.owner, state, err);
      }
      if (decision !== 'pass') return verdict(decision);
    }
    return this.#fallback(state);
  }

  /** Whether a message on `topic` may reach this client; synchronous, asked per delivered message. */
  authorizeDelivery(state: ClientState, topic: string): boolean {
    const entries = this.#entries;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      const hook = entry.hooks.authorizeDelivery;
      if (!hook) continue;
      let decision: MqttTopicDecision;
      try {
        decision = hook.call(entry.hooks, state.info, topic);
      } catch (err) {
        return this.#threw('authorizeDelivery', entry.owner, state, err);
      }
      if (decision !== 'pass') return decision === 'allow';
    }
    return true;
  }

  #fallback(state: ClientState): boolean {
    return state.authenticated || this.#allowAnonymous;
  }

  #threw(kind: TopicHook | 'authorizeDelivery', owner: string, state: ClientState, err: unknown): false {
    this.#log.error({ err, owner, clientId: state.info.id }, `mqtt ${kind} hook threw; denying`);
    return false;
  }
}
