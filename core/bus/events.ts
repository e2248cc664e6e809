/**
 * The typed event map. Each plugin adds its own events by declaration merging:
 *
 *   declare module '../../core/bus/events.ts' {
 *     interface HearthEvents { 'lighting.site.created': { siteId: string } }
 *   }
 *
 * Event names are namespaced by the plugin that emits them (`<plugin>.<thing>.<verb>`).
 */
export interface HearthEvents {
  'core.ready': { urls: Record<string, string> };
  'core.stopping': Record<string, never>;
}

export type EventName = keyof HearthEvents;
export type Listener<E extends EventName> = (payload: HearthEvents[E]) => void | Promise<void>;

/** What a plugin sees: every subscription it makes is removed when it stops. */
export interface Bus {
  on<E extends EventName>(event: E, listener: Listener<E>): () => void;
  /** Runs every listener; a throwing listener is logged as `<owner>/<event>` and never breaks the emitter. */
  emit<E extends EventName>(event: E, payload: HearthEvents[E]): void;
}
