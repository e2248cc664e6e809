/**
 * Calls the admin API for a console session: `/admin/ui/api/<path>` → `/admin/<path>` on the admin
 * listener (or a page's own API, types.ts), with the session's admin key. Bodies and answers are streamed both ways (backups are large).
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Context } from 'koa';
import { relayOnly } from '../../core/sdk.ts';

const PASSED_REQUEST = ['content-type', 'content-length', 'accept'];
const PASSED_RESPONSE = ['content-type', 'content-disposition', 'retry-after'];

export function forward(ctx: Context, base: string, authorization: string, path: string): Promise<void> {
  // The forwarded request is counted on its own listener; counting this one too would make a restore
  // sent from the console wait for itself until the shutdown grace ran out.
  relayOnly(ctx.state);
  const target = new URL(path + (ctx.querystring ? `?${ctx.querystring}` : ''), base);
  const headers: Record<string, string> = { authorization };
  for (const h of PASSED_REQUEST) {
    const v = ctx.get(h);
    if (v) headers[h] = v;
  }
  const https = target.protocol === 'https:';
  // Our own listener on loopback: its certificate is often self-signed.
  const send = https ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const out = send(
      target,
      { method: ctx.method, headers, ...(https ? { rejectUnauthorized: false } : {}) },
      (res: IncomingMessage) => {
        ctx.status = res.statusCode ?? 502;
        for (const h of PASSED_RESPONSE) {
          const v = res.headers[h];
          if (typeof v === 'string') ctx.set(h, v);
        }
        ctx.body = res;
        resolve();
      },
    );
    out.once('error', reject);
    if (ctx.method === 'GET' || ctx.method === 'HEAD') out.end();
    else ctx.req.pipe(out);
  });
}
