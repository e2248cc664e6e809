/**
 * Site WebSockets opened with a token live only as long as the token: a revoked or expired token loses its
 * sockets within a second (a sweep that runs only while such sockets exist), or at once when the auth plugin
 * asks for a `revalidate()`. Sockets opened with the site key are not tracked: rotating the key closes them.
 */
import type { HearthSocket } from '../../core/sdk.ts';

const SWEEP_MS = 1000;
/** The same code as a rotated key or a deleted site: the page stops retrying and says the link is dead. */
export const TOKEN_GONE = { code: 4001, reason: 'token no longer valid' } as const;

export class TokenSockets {
  readonly #open = new Map<HearthSocket, () => boolean>();
  #timer: NodeJS.Timeout | null = null;

  add(socket: HearthSocket, stillValid: () => boolean): () => void {
    this.#open.set(socket, stillValid);
    this.#timer ??= setInterval(() => this.revalidate(), SWEEP_MS).unref();
    return () => this.#forget(socket);
  }

  /** Closes every socket whose token is no longer valid; returns how many. */
  revalidate(): number {
    let closed = 0;
    for (const [socket, stillValid] of this.#open) {
      if (stillValid()) continue;
      this.#forget(socket);
      socket.close(TOKEN_GONE.code, TOKEN_GONE.reason);
      closed += 1;
    }
    return closed;
  }

  stop(): void {
    this.#open.clear();
    this.#forget(null);
  }

  #forget(socket: HearthSocket | null): void {
    if (socket) this.#open.delete(socket);
    if (this.#open.size === 0 && this.#timer) {
      clearInterval(this.#timer);
      this.#timer = null;
    }
  }
}
