/**
 * The site WebSocket at `/api/site/<key>/ws` (and `/site/<key>/ws`). Envelope `{command, data}` as in the
 * original service (docs/lighting.md#the-websocket); the path already names the site, so a connection is subscribed at
 * once and the 1.0 `subscribe` command is only acknowledged. Clients may add an `id` to a command; the
 * `ack`/`error` reply echoes it.
 */
import type { IncomingMessage } from 'node:http';
import type { Logger } from 'pino';
import { HttpError, type WsApi } from '../../core/sdk.ts';
import {
  AccessControl,
  BEARER_PROTOCOL,
  bearerOfProtocols,
  type PresentedToken,
  presentedToken,
  type Scope,
  type SiteAccess,
} from './access.ts';
import { asObject, invalid, str } from './domain/check.ts';
import { hasColourFields, parseColour } from './domain/colour.ts';
import { parseLevel } from './domain/level.ts';
import { connectionView } from './drivers-host.ts';
import type { Live } from './live.ts';
import type { SiteDeps } from './routes/context.ts';
import { siteData } from './routes/site.ts';
import { TOKEN_GONE, type TokenSockets } from './token-sockets.ts';

const MAX_MESSAGE = 16 * 1024;

type Handler = (siteId: string, data: Record<string, unknown>) => Promise<unknown>;

/** `scope: null`: any socket may send it (a writer-only token keeps its link alive with `ping`). */
function handlers(d: SiteDeps): Record<string, { scope: Scope | null; run: Handler }> {
  return {
    subscribe: { scope: 'lights:read', run: async (siteId) => ({ siteid: siteId }) },
    ping: { scope: null, run: async () => ({ pong: Date.now() }) },
    set: {
      scope: 'lights:write',
      run: async (siteId, data) => {
        const light = d.catalog.light(siteId, str(data, '_id'));
        const extra = hasColourFields(data) ? parseColour(data, light._id, light.capabilities) : undefined;
        const { level, handed } = d.control.set(light, parseLevel(data), extra);
        await handed;
        return { _id: light._id, ...level };
      },
    },
    'apply/scene': {
      scope: 'scenes:apply',
      run: async (siteId, data) => {
        const scene = d.catalog.scene(siteId, str(data, '_id'));
        return { _id: scene._id, ...(await d.actions.applyScene(siteId, scene)) };
      },
    },
    'group/toggle': {
      scope: 'lights:write',
      run: async (siteId, data) => {
        const group = d.catalog.group(siteId, str(data, '_id'));
        return { _id: group._id, ...(await d.actions.toggleGroup(siteId, group)) };
      },
    },
  };
}

/** What a socket can be used for: reading the site's events, or one of the commands. */
const SOCKET_SCOPES: readonly Scope[] = ['lights:read', 'lights:write', 'scenes:apply'];

/**
 * The token of an upgrade: `Authorization: Bearer` (apps), else the subprotocols `bearer, <token>` (browsers
 * cannot set headers on a WebSocket, and a token in the URL would reach logs and history).
 */
function tokenOf(req: IncomingMessage, access: AccessControl): PresentedToken | null {
  const urls = access.proofUrls((req.url ?? '/').split('?')[0]!, true);
  const fromHeader = presentedToken({
    authorization: req.headers.authorization,
    dpop: req.headers.dpop,
    method: req.method ?? 'GET',
    urls,
  });
  if (fromHeader) return fromHeader;
  const token = bearerOfProtocols(req.headers['sec-websocket-protocol']);
  return token ? { token, how: { scheme: 'bearer', method: 'GET', urls } } : null;
}

export function mountSocket(ws: WsApi, d: SiteDeps, live: Live, tokens: TokenSockets, log: Logger): void {
  const table = handlers(d);
  for (const path of ['/api/site/:key/ws', '/site/:key/ws']) {
    ws.route<SiteAccess>({
      path,
      authenticate: (req, params) => d.access.resolve(params.key ?? '', tokenOf(req, d.access)),
      // A token that can neither read the site nor send a command here (a wall switch's sensors:write).
      authorize: (access) => (SOCKET_SCOPES.some((s) => AccessControl.allows(access, s)) ? null : 403),
      selectProtocol: (offered) => (offered.has(BEARER_PROTOCOL) ? BEARER_PROTOCOL : false),
      onConnection(socket, access) {
        const remove = live.add(access.siteId, socket, access.scopes);
        socket.raw.on('close', remove);
        const { stillValid } = access;
        if (stillValid) socket.raw.on('close', tokens.add(socket, stillValid));
        if (AccessControl.allows(access, 'lights:read')) {
          const connections = d.drivers.forSite(access.siteId).map(connectionView);
          socket.sendJson({ command: 'hello', data: { ...siteData(d, access.siteId), connections } });
        }
        socket.raw.on('message', (raw, isBinary) => {
          void onMessage(raw.toString(), isBinary);
        });
        async function onMessage(text: string, isBinary: boolean): Promise<void> {
          // A command never runs on a token revoked since the upgrade, even between two sweeps.
          if (stillValid && !stillValid()) return socket.close(TOKEN_GONE.code, TOKEN_GONE.reason);
          let id: unknown;
          try {
            if (isBinary || text.length > MAX_MESSAGE)
              throw invalid('messages must be JSON text up to 16 KiB');
            let msg: Record<string, unknown>;
            try {
              msg = asObject(JSON.parse(text), 'message');
            } catch {
              throw invalid('message must be a JSON object {command, data}');
            }
            id = msg.id;
            // Own entries only: `constructor` or `__proto__` must not find Object.prototype's members.
            const h =
              typeof msg.command === 'string' && Object.hasOwn(table, msg.command)
                ? table[msg.command]
                : undefined;
            if (!h) throw invalid(`unknown command ${String(msg.command).slice(0, 40)}`);
            if (h.scope && !AccessControl.allows(access, h.scope))
              throw new HttpError(403, 'insufficient_scope', `this token lacks the ${h.scope} scope`);
            const data = msg.data === undefined ? {} : asObject(msg.data, 'data');
            const result = await h.run(access.siteId, data);
            socket.sendJson({ command: 'ack', ...(id !== undefined ? { id } : {}), data: result });
          } catch (err) {
            // Only our own HttpErrors carry messages meant for clients; anything else stays in the log.
            const message = err instanceof HttpError ? err.message : 'internal error';
            if (!(err instanceof HttpError)) log.error({ err }, 'websocket command failed');
            socket.sendJson({ command: 'error', ...(id !== undefined ? { id } : {}), data: { message } });
          }
        }
      },
    });
  }
}
