/**
 * WebSocket subscribers per site. Messages use the original service's envelope `{command, data}`
 * (docs/lighting.md#the-websocket). A socket only ever joins the site its key or token resolved to, so a client of one
 * site never sees another's events; slow clients are dropped by the core's bounded `sendJson`. Every push
 * names the scope a receiver needs (site state: `lights:read`), so a token that may only post sensor
 * events or switch lights never reads the site's state through the socket.
 */
import type { HearthSocket } from '../../core/sdk.ts';
import type { Scope } from './access.ts';

/** `null`: the site key, which grants every scope. */
type Scopes = ReadonlySet<string> | null;

const mayReceive = (scopes: Scopes, needed: Scope) => scopes === null || scopes.has(needed);

export class Live {
  readonly #subs = new Map<string, Map<HearthSocket, Scopes>>();

  add(siteId: string, socket: HearthSocket, scopes: Scopes): () => void {
    const subs = this.#subs.get(siteId) ?? new Map<HearthSocket, Scopes>();
    this.#subs.set(siteId, subs);
    subs.set(socket, scopes);
    return () => {
      subs.delete(socket);
      if (subs.size === 0 && this.#subs.get(siteId) === subs) this.#subs.delete(siteId);
    };
  }

  total(): number {
    let n = 0;
    for (const subs of this.#subs.values()) n += subs.size;
    return n;
  }

  count(siteId: string): number {
    return this.#subs.get(siteId)?.size ?? 0;
  }

  publish(siteId: string, command: string, data: unknown, needs: Scope = 'lights:read'): number {
    return this.send(siteId, { command, data }, needs);
  }

  /**
   * Sends a ready-made message to every subscriber of the site holding `needs`; returns how many accepted
   * it. The JSON is built once for all subscribers; the core drops a socket over its buffer bound.
   */
  send(siteId: string, message: unknown, needs: Scope = 'lights:read'): number {
    const subs = this.#subs.get(siteId);
    if (!subs) return 0;
    let text: string | undefined;
    let n = 0;
    for (const [s, scopes] of subs) {
      if (!mayReceive(scopes, needs)) continue;
      text ??= JSON.stringify(message);
      if (s.sendText(text)) n++;
    }
    return n;
  }

  /** Closes a site's sockets (site deleted, key rotated): holders of the old key must reconnect. */
  closeSite(siteId: string, reason: string, code = 4001): void {
    for (const s of this.#subs.get(siteId)?.keys() ?? []) s.close(code, reason);
    this.#subs.delete(siteId);
  }

  closeAll(): void {
    for (const id of [...this.#subs.keys()]) this.closeSite(id, 'stopping', 1001); // RFC 6455 §7.4.1 going away
  }
}
