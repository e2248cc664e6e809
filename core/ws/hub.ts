import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { type WebSocket, WebSocketServer } from 'ws';
import { type Availability, RETRY_AFTER_S } from '../http/availability.ts';
import { wrapSocket } from './socket.ts';
import type { WsApi, WsParams, WsRoute } from './types.ts';

interface Entry {
  owner: string;
  pattern: RegExp;
  keys: string[];
  route: WsRoute<unknown>;
}

const HEARTBEAT_MS = 30_000;
/** The UI sockets' messages are small JSON commands. */
const DEFAULT_MAX_PAYLOAD = 64 * 1024;

/** Compiles `/api/site/:key/ws` to a regexp with named segments. */
function compile(path: string): { pattern: RegExp; keys: string[] } {
  const keys: string[] = [];
  const source = path
    .split('/')
    .map((seg) => {
      if (!seg.startsWith(':')) return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      keys.push(seg.slice(1));
      return '([^/]+)';
    })
    .join('/');
  return { pattern: new RegExp(`^${source}/?$`), keys };
}

function refuse(socket: Duplex, status: number): void {
  const text =
    { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 503: 'Service Unavailable' }[status] ??
    'Bad Request';
  const retry = status === 503 ? `Retry-After: ${RETRY_AFTER_S}\r\n` : '';
  socket.end(`HTTP/1.1 ${status} ${text}\r\n${retry}Connection: close\r\nContent-Length: 0\r\n\r\n`);
}

/** WebSocket upgrades on the main listener, routed by path to the plugin that owns them. */
export class WsHub {
  /** The route each upgrade in progress matched, so the subprotocol is chosen by that route. */
  private readonly upgrading = new WeakMap<IncomingMessage, WsRoute<unknown>>();
  /** One server per message-size limit: ws applies `maxPayload` per server. */
  private readonly servers = new Map<number, WebSocketServer>();
  private readonly entries: Entry[] = [];
  private readonly sockets = new Map<WebSocket, string>();
  private readonly alive = new WeakSet<WebSocket>();
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    server: Server,
    private readonly log: Logger,
    /** Until the hub is ready (and while it restores), unknown paths answer 503, not 404. */
    private readonly availability?: Availability,
  ) {
    server.on('upgrade', (req, socket, head) => {
      this.upgrade(req, socket, head).catch((err: unknown) => {
        this.log.error({ err }, 'websocket upgrade failed');
        refuse(socket, 400);
      });
    });
    // Phones sleep and vanish without a close frame; pings find them.
    this.heartbeat = setInterval(() => this.ping(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  add<A>(owner: string, route: WsRoute<A>): void {
    this.entries.push({ owner, ...compile(route.path), route: route as WsRoute<unknown> });
  }

  forOwner(owner: string): WsApi & { dispose(): void } {
    return {
      route: (route) => this.add(owner, route),
      dispose: () => {
        for (let i = this.entries.length - 1; i >= 0; i--)
          if (this.entries[i]?.owner === owner) this.entries.splice(i, 1);
        for (const [ws, o] of this.sockets) if (o === owner) ws.close(1001, 'going away');
      },
    };
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const phase = this.availability?.phase ?? 'ready';
    // Restoring or stopping: no plugin takes a new connection (its writes would be dropped).
    if (phase === 'restoring' || phase === 'stopping') return refuse(socket, 503);
    for (const entry of this.entries) {
      const m = entry.pattern.exec(path);
      if (!m) continue;
      const params = decodeParams(entry.keys, m);
      // A malformed escape (`%E0%A4%A`) names nothing: the same 404 as any unknown path, and no error log.
      if (!params) return refuse(socket, 404);
      const auth = await entry.route.authenticate(req, params);
      if (auth === null || auth === undefined) return refuse(socket, entry.route.refuseStatus ?? 404);
      const denied = entry.route.authorize?.(auth);
      if (denied) return refuse(socket, denied);
      this.upgrading.set(req, entry.route);
      this.server(entry.route.maxPayload ?? DEFAULT_MAX_PAYLOAD).handleUpgrade(req, socket, head, (ws) => {
        this.track(ws, entry.owner, path);
        entry.route.onConnection(wrapSocket(ws), auth, req);
      });
      return;
    }
    refuse(socket, phase === 'ready' ? 404 : 503);
  }

  private server(maxPayload: number): WebSocketServer {
    let wss = this.servers.get(maxPayload);
    if (!wss) {
      wss = new WebSocketServer({
        noServer: true,
        maxPayload,
        handleProtocols: (offered, req) => {
          const select = this.upgrading.get(req)?.selectProtocol;
          return select ? select(offered) : (offered.values().next().value ?? false);
        },
      });
      this.servers.set(maxPayload, wss);
    }
    return wss;
  }

  private track(ws: WebSocket, owner: string, path: string): void {
    this.sockets.set(ws, owner);
    this.alive.add(ws);
    ws.on('pong', () => this.alive.add(ws));
    ws.on('close', () => this.sockets.delete(ws));
    ws.on('error', (err: Error & { code?: string }) => {
      // A client whose message exceeds the route's limit is cut off (1009): worth an operator's eye.
      if (err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH')
        this.log.warn(
          { path: redactPath(path), owner, err: err.message },
          'websocket message too large; closed',
        );
      else this.log.debug({ err }, 'websocket error');
    });
  }

  private ping(): void {
    for (const ws of this.sockets.keys()) {
      if (!this.alive.has(ws)) {
        ws.terminate();
        continue;
      }
      this.alive.delete(ws);
      ws.ping();
    }
  }

  close(): void {
    clearInterval(this.heartbeat);
    for (const ws of this.sockets.keys()) ws.terminate();
    for (const wss of this.servers.values()) wss.close();
  }
}

/** Paths carry site keys (`/api/site/<key>/ws`): only the first segment is logged. */
function redactPath(path: string): string {
  const first = path.split('/')[1] ?? '';
  return path.split('/').length > 2 ? `/${first}/…` : path;
}

function decodeParams(keys: string[], m: RegExpExecArray): WsParams | null {
  const params: WsParams = {};
  try {
    keys.forEach((k, i) => {
      params[k] = decodeURIComponent(m[i + 1] ?? '');
    });
  } catch {
    return null;
  }
  return params;
}
