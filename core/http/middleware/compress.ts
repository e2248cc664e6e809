import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Context } from 'koa';

/**
 * Compresses the web apps' static files (scripts, styles, SVG, manifests) for browsers that accept it:
 * on a phone over Wi-Fi the first load is mostly these bytes. Only these types, never HTML or API
 * answers: those can carry a secret next to text a requester chose, which compression would leak
 * through the length (BREACH).
 */
const COMPRESSIBLE =
  /^(?:application\/(?:javascript|manifest\+json)|text\/(?:javascript|css)|image\/svg\+xml)\b/;
/** Below this a compressed answer saves less than its headers cost. */
const MIN_BYTES = 1024;

/**
 * Compresses a finished response's body in place when it is a compressible asset (run by `frame()` after
 * the handler, so the API's requests pay one type check and no middleware layer of their own).
 */
export function compressAsset(ctx: Context): void {
  const body: unknown = ctx.body;
  if (typeof body !== 'string' && !Buffer.isBuffer(body)) return;
  if (!COMPRESSIBLE.test(ctx.response.type) || ctx.response.get('Content-Encoding')) return;
  const raw = typeof body === 'string' ? Buffer.from(body) : body;
  if (raw.length < MIN_BYTES) return;
  ctx.vary('Accept-Encoding');
  // Brotli whenever accepted (smaller at the same cost), whatever order the browser lists them in.
  const encoding = ctx.acceptsEncodings('br') === 'br' ? 'br' : ctx.acceptsEncodings('gzip', 'identity');
  if (encoding === 'br') {
    ctx.body = brotliCompressSync(raw, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: raw.length },
    });
  } else if (encoding === 'gzip') {
    ctx.body = gzipSync(raw, { level: 6 });
  } else return;
  ctx.set('Content-Encoding', encoding);
}
