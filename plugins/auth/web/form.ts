import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';

/** Login and consent bodies are small; anything larger is refused before it is buffered (docs/auth.md#behaviour-where-the-spec-is-silent). */
const LIMIT = 64 * 1024;

export class FormError extends Error {}

/**
 * Reads an `application/x-www-form-urlencoded` body with a hard size cap. The page routes parse their own
 * bodies so `POST /login` can answer 404 before reading anything when local login is off.
 */
export async function readForm(ctx: Context): Promise<URLSearchParams> {
  if (!ctx.is('application/x-www-form-urlencoded')) throw new FormError('expected a form submission');
  return new URLSearchParams((await readBody(ctx.req)).toString('utf8'));
}

/**
 * The whole body, at most LIMIT bytes. A form small enough to come in the packet of its headers is parsed
 * by the time the handler's first microtask runs (Node's HTTP parser finishes the packet before microtasks
 * run): it is then taken from the stream's buffer at once, without the async iterator's promise per chunk
 * and per-request setup (a tenth of the token endpoint's CPU in a profile). Anything else is read as a stream.
 */
async function readBody(req: IncomingMessage): Promise<Buffer> {
  if (!req.complete) await null;
  if (req.complete && !req.readableEnded && !req.readableFlowing && req.readableLength <= LIMIT) {
    // Everything is buffered and the stream has seen its end: read() drains it and 'end' follows.
    return (req.read() as Buffer | null) ?? Buffer.alloc(0);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > LIMIT) throw new FormError('form too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** One form field that must appear exactly once. */
export function field(form: URLSearchParams, name: string, max = 1024): string | null {
  const all = form.getAll(name);
  if (all.length !== 1 || all[0]!.length > max) return null;
  return all[0]!;
}
