/**
 * Operator routes on the admin listener (admin key): pair a bridge (waits for the link button), list and
 * remove bridges, list and recall a bridge's scenes. No answer ever carries an application key.
 * Errors: `{error, message}`.
 */
import {
  type HearthRouter,
  HttpError,
  jsonObjectBody,
  type RouteContext,
  routeParam,
} from '../../core/sdk.ts';
import { isBridgeId, normaliseBridgeId } from '../../drivers/hue/tls.ts';
import type { LightingExports } from '../lighting/types.ts';
import { type BridgeRecord, publicView } from './bridges.ts';
import { type PairingFailure, type PairingRequest, type Pairings, pairingView } from './pairings.ts';

export interface HueRouteDeps {
  lighting: LightingExports;
  /** Bridges answering on the LAN (mDNS, a few seconds). */
  discover(): Promise<Array<{ bridgeId: string; host: string; port: number; name: string; paired: boolean }>>;
  list(): Array<{ record: BridgeRecord; connected: boolean }>;
  pairings: Pairings;
  bridge(bridgeId: string): BridgeRecord | undefined;
  remove(bridgeId: string): Promise<boolean>;
  scenes(bridgeId: string): Array<{ id: string; name: string; group: string | undefined }> | null;
  recall(bridgeId: string, sceneId: string): Promise<void>;
}

const FAILURE_STATUS: Record<PairingFailure, number> = {
  link_button_not_pressed: 409,
  bridge_untrusted: 409,
  pairing_refused: 409,
  bridge_unreachable: 502,
  pairing_failed: 502,
};

const bad = (message: string) => new HttpError(400, 'invalid_request', message);

const body = jsonObjectBody;

const param = routeParam;

/** Host names and IPv4/IPv6 literals; nothing with a scheme, path or credentials. */
const HOST = /^(?:[a-zA-Z0-9.-]{1,253}|\[?[0-9a-fA-F:]{2,39}\]?)$/;

export function mountHueRoutes(r: HearthRouter, d: HueRouteDeps): void {
  r.get('/bridges', (ctx) => {
    ctx.body = d.list().map((b) => publicView(b.record, b.connected));
  });

  r.get('/discover', async (ctx) => {
    try {
      ctx.body = await d.discover();
    } catch (err) {
      throw new HttpError(503, 'discovery_unavailable', `mDNS discovery failed: ${(err as Error).message}`);
    }
  });

  /** The pairing request of a body (400/404 as documented in README.md). */
  const pairingRequest = (ctx: RouteContext): PairingRequest => {
    const b = body(ctx);
    for (const k of Object.keys(b))
      if (!['host', 'port', 'site', 'bridgeId'].includes(k)) throw bad(`unknown field ${k}`);
    if (typeof b.host !== 'string' || !HOST.test(b.host))
      throw bad('host must be the bridge address (a name or an IP)');
    const port = b.port ?? 443;
    if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535)
      throw bad('port must be an integer 1..65535');
    if (typeof b.site !== 'string' || b.site === '') throw bad('site is required (site id or name)');
    const site = d.lighting.sites.get(b.site) ?? d.lighting.sites.list().find((s) => s.name === b.site);
    if (!site) throw new HttpError(404, 'not_found', `no site ${b.site}`);
    let bridgeId: string | undefined;
    if (b.bridgeId !== undefined) {
      if (typeof b.bridgeId !== 'string' || !isBridgeId(normaliseBridgeId(b.bridgeId)))
        throw bad('bridgeId must be 16 hex digits');
      bridgeId = normaliseBridgeId(b.bridgeId);
    }
    return {
      host: b.host.replace(/^\[|\]$/g, ''),
      port,
      site: site.siteid,
      ...(bridgeId ? { bridgeId } : {}),
    };
  };

  // A pairing job: answers at once; GET it until it is no longer `waiting` (README.md#pairing).
  r.post('/pairings', async (ctx) => {
    const job = await d.pairings.start(pairingRequest(ctx));
    ctx.status = 202;
    ctx.body = pairingView(job);
  });

  r.get('/pairings/:id', (ctx) => {
    const job = d.pairings.get(param(ctx, 'id'));
    if (!job) throw new HttpError(404, 'not_found', `no pairing ${param(ctx, 'id')}`);
    ctx.body = pairingView(job);
  });

  // The same job, answered when it ends: 201 with the bridge, or the job's error.
  r.post('/bridges', async (ctx) => {
    const started = await d.pairings.start(pairingRequest(ctx));
    const job = await d.pairings.settled(started.id);
    const record = job?.state === 'paired' && job.bridgeId ? d.bridge(job.bridgeId) : undefined;
    if (record) {
      ctx.status = 201;
      ctx.body = publicView(record, false);
      return;
    }
    if (job?.state !== 'failed' || !job.error)
      throw new HttpError(
        503,
        'pairing_interrupted',
        'the hub is stopping; the pairing resumes at its next start',
      );
    throw new HttpError(FAILURE_STATUS[job.error.code], job.error.code, job.error.message);
  });

  r.delete('/bridges/:id', async (ctx) => {
    const id = normaliseBridgeId(param(ctx, 'id'));
    if (!(await d.remove(id))) throw new HttpError(404, 'not_found', `no paired bridge ${id}`);
    ctx.status = 204;
  });

  r.get('/bridges/:id/scenes', (ctx) => {
    const id = normaliseBridgeId(param(ctx, 'id'));
    const scenes = d.scenes(id);
    if (!scenes) throw new HttpError(404, 'not_found', `no connected bridge ${id}`);
    ctx.body = scenes;
  });

  r.post('/bridges/:id/scenes/:scene/recall', async (ctx) => {
    const id = normaliseBridgeId(param(ctx, 'id'));
    const scene = param(ctx, 'scene');
    const scenes = d.scenes(id);
    if (!scenes) throw new HttpError(404, 'not_found', `no connected bridge ${id}`);
    if (!scenes.some((s) => s.id === scene))
      throw new HttpError(404, 'not_found', `no scene ${scene} on bridge ${id}`);
    await d.recall(id, scene);
    ctx.status = 204;
  });
}
