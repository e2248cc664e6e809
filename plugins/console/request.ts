/** What every console route shares: reading a small JSON body, the same-origin check, the session cookie. */
import type { Context } from 'koa';
import { HttpError } from '../../core/sdk.ts';
import type { SessionKind, Sessions } from './sessions.ts';

export const COOKIE = 'hearth_console';

export async function readJson(ctx: Context, limit = 4096): Promise<Record<string, unknown>> {
  if (ctx.request.type !== 'application/json') {
    throw new HttpError(415, 'unsupported_media_type', 'Content-Type must be application/json');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new HttpError(413, 'too_large', 'the body is too large');
    chunks.push(chunk);
  }
  try {
    const v: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {}
  throw new HttpError(400, 'invalid_request', 'the body must be a JSON object');
}

/** A request from another origin never reaches a session (the cookie is SameSite=Strict as well). */
export function sameOrigin(ctx: Context): void {
  const origin = ctx.get('origin');
  // Compared with the Host header itself (Koa's ctx.origin is not the server's own origin here).
  if (origin && origin !== `${ctx.protocol}://${ctx.req.headers.host}`)
    throw new HttpError(403, 'forbidden', 'cross-origin request refused');
}

/** Starts a session acting with `key` and answers `{csrf}` with its cookie. */
export function startSession(ctx: Context, sessions: Sessions, key: string, kind: SessionKind): void {
  const { id, session } = sessions.create(key, kind);
  ctx.cookies.set(COOKIE, id, {
    httpOnly: true,
    sameSite: 'strict',
    path: '/admin/ui',
    secure: ctx.secure,
  });
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { csrf: session.csrf, kind };
}

/** 429 with the real wait in `Retry-After` (RFC 6585 §4). */
export function tooManyAttempts(seconds: number): HttpError {
  return new HttpError(429, 'too_many_attempts', 'Too many attempts from your address; try again later', {
    headers: { 'Retry-After': String(Math.max(1, seconds)) },
  });
}
