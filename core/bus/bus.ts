import type { Logger } from 'pino';
import type { Bus, EventName, HearthEvents, Listener } from './events.ts';

interface Subscription {
  owner: string;
  listener: Listener<EventName>;
}

/** The process-wide bus. Each plugin gets a view (`forOwner`) whose subscriptions die with it. */
export class EventBus {
  private readonly listeners = new Map<EventName, Subscription[]>();

  constructor(private readonly log: Logger) {}

  forOwner(owner: string): Bus & { dispose(): void } {
    return {
      on: (event, listener) => this.on(owner, event, listener),
      emit: (event, payload) => this.emit(event, payload),
      dispose: () => this.removeOwner(owner),
    };
  }

  on<E extends EventName>(owner: string, event: E, listener: Listener<E>): () => void {
    const sub: Subscription = { owner, listener: listener as Listener<EventName> };
    const list = this.listeners.get(event) ?? [];
    this.listeners.set(event, [...list, sub]);
    return () => {
      const now = this.listeners.get(event) ?? [];
      this.listeners.set(
        event,
        now.filter((s) => s !== sub),
      );
    };
  }

  emit<E extends EventName>(event: E, payload: HearthEvents[E]): void {
    // Copy-on-write lists: a listener that unsubscribes during emit does not disturb the loop.
    for (const sub of this.listeners.get(event) ?? []) {
      try {
        const result = sub.listener(payload);
        if (result instanceof Promise) result.catch((err: unknown) => this.report(sub.owner, event, err));
      } catch (err) {
        this.report(sub.owner, event, err);
      }
    }
  }

  removeOwner(owner: string): void {
    for (const [event, list] of this.listeners) {
      this.listeners.set(
        event,
        list.filter((s) => s.owner !== owner),
      );
    }
  }

  count(owner?: string): number {
    let n = 0;
    for (const list of this.listeners.values())
      n += owner ? list.filter((s) => s.owner === owner).length : list.length;
    return n;
  }

  private report(owner: string, event: string, err: unknown): void {
    this.log.error({ err }, `${owner}/${event} listener failed`);
  }
}
