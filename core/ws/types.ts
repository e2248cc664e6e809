import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';

/** Route parameters matched from the upgrade path, e.g. `/api/site/:key/ws` gives `{ key }`. */
export type WsParams = Record<string, string>;

export interface WsRoute<A> {
  /** Path pattern on the main listener with `:name` segments, e.g. `/api/site/:key/ws`. */
  path: string;
  /**
   * Decides whether the upgrade is accepted. Return the connection's identity, or `null` to refuse
   * with `status` (default 404 so an unknown key and a wrong key look the same).
   */
  authenticate(req: IncomingMessage, params: WsParams): Promise<A | null> | A | null;
  onConnection(socket: HearthSocket, auth: A, req: IncomingMessage): void;
  /** Status sent when `authenticate` returns null. */
  refuseStatus?: number;
  /** A status (e.g. 403) that refuses a client who authenticated but may do nothing here; null accepts it. */
  authorize?(auth: A): number | null;
  /**
   * The subprotocol to answer with among those the client offered (RFC 6455 §4.2.2), or false for none.
   * Without it the first offered one is echoed.
   */
  selectProtocol?(offered: ReadonlySet<string>): string | false;
  /**
   * Largest message accepted from the client, in bytes (default 64 KiB); a larger one closes the socket
   * with 1009 and a warning in the log.
   */
  maxPayload?: number;
}

/** A ws socket with a bounded send: a client whose buffer exceeds the limit is dropped. */
export interface HearthSocket {
  readonly raw: WebSocket;
  /** Sends JSON; returns false (and drops the client) when it is too slow. */
  sendJson(value: unknown): boolean;
  /** Sends text serialised once for many sockets (fan-out); same bound as sendJson. */
  sendText(text: string): boolean;
  close(code?: number, reason?: string): void;
}

export interface WsApi {
  route<A>(route: WsRoute<A>): void;
}
