/**
 * WebSocket subscribers per site. Messages use the original service's envelope `{command, data}`
 * (docs/lighting.md#the-websocket). A socket only ever joins the site its key or token resolved to, so a client of one
 * site never sees another's events; slow clients are dropped by the core's bounded `sendJson`.
 */
import type { HearthSocket } from '../../core/ws/types.ts';

export class Live {
  readonly #subs = new Map<string, Set<HearthSocket>>();

  add(siteId: string, socket: HearthSocket): () => void {
    const set = this.#subs.get(siteId) ?? new Set<HearthSocket>();
    this.#subs.set(siteId, set);
    set.add(socket);
    return () => {
      set.delete(socket);
      if (set.size === 0 && this.#subs.get(siteId) === set) this.#subs.delete(siteId);
    };
  }

  total(): number {
    let n = 0;
    for (const set of this.#subs.values()) n += set.size;
    return n;
  }

  count(siteId: string): number {
    return this.#subs.get(siteId)?.size ?? 0;
  }

  publish(siteId: string, command: string, data: unknown): number {
    return this.send(siteId, { command, data });
  }

  /**
   * Sends a ready-made message to every subscriber of the site; returns how many accepted it. The JSON is
   * built once for all subscribers; the core drops a socket over its buffer bound.
   */
  send(siteId: string, message: unknown): number {
    const set = this.#subs.get(siteId);
    if (!set) return 0;
    const text = JSON.stringify(message);
    let n = 0;
    for (const s of set) if (s.sendText(text)) n++;
    return n;
  }

  /** Closes a site's sockets (site deleted, key rotated): holders of the old key must reconnect. */
  closeSite(siteId: string, reason: string, code = 4001): void {
    for (const s of this.#subs.get(siteId) ?? []) s.close(code, reason);
    this.#subs.delete(siteId);
  }

  closeAll(): void {
    for (const id of [...this.#subs.keys()]) this.closeSite(id, 'stopping', 1001); // RFC 6455 §7.4.1 going away
  }
}
