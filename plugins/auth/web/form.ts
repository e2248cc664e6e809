import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

/** Login and consent bodies are small; anything larger is refused before it is buffered (docs/auth.md#behaviour-where-the-spec-is-silent). */
const LIMIT = 64 * 1024;

export class FormError extends Error {}

/**
 * Reads an `application/x-www-form-urlencoded` body with a hard size cap. The page routes parse their own
 * bodies so `POST /login` can answer 404 before reading anything when local login is off.
 */
export async function readForm(from: { req: IncomingMessage }): Promise<URLSearchParams> {
  if (!isFormRequest(from.req.headers)) throw new FormError('expected a form submission');
  return new URLSearchParams((await readBody(from.req)).toString('utf8'));
}

/** The media type before any parameters, between optional spaces or tabs (RFC 9110 §8.3), any case. */
const FORM_TYPE = /^[ \t]*application\/x-www-form-urlencoded[ \t]*(?:;|$)/i;

/**
 * Whether the request announces a body (a Transfer-Encoding, or a numeric Content-Length) of type
 * `application/x-www-form-urlencoded`: what Koa's `ctx.is` answered for these routes, without its parsing
 * of every parameter (the token endpoint is also served without Koa).
 */
export function isFormRequest(headers: IncomingHttpHeaders): boolean {
  const hasBody =
    headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(headers['content-length']));
  const type = headers['content-type'];
  return hasBody && type !== undefined && FORM_TYPE.test(type);
}

/**
 * The whole body, at most LIMIT bytes. A form small enough to come in the packet of its headers is parsed
 * by the time the handler's first microtask runs (Node's HTTP parser finishes the packet before microtasks
 * run): it is then taken from the stream's buffer at once (a tenth of the token endpoint's CPU in a profile
 * went to the stream machinery). Anything else is read as it comes, with `data`/`end` listeners: an async
 * iterator costs several times more to set up, and under load many small bodies come after their headers.
 */
async function readBody(req: IncomingMessage): Promise<Buffer> {
  if (!req.complete) await null;
  if (req.complete && !req.readableEnded && !req.readableFlowing && req.readableLength <= LIMIT) {
    // Everything is buffered and the stream has seen its end: read() drains it and 'end' follows.
    return (req.read() as Buffer | null) ?? Buffer.alloc(0);
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (err: Error | null) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', done);
      req.off('close', onClose);
      if (err) reject(err);
      else resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > LIMIT) {
        // Stop buffering; what is left of the body is read and dropped so the connection stays usable.
        done(new FormError('form too large'));
        req.resume();
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => done(null);
    // The client went before the end of its body: nothing to answer, but the request must not hang.
    const onClose = () => done(new Error('the request was aborted before its body ended'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', done);
    req.on('close', onClose);
  });
}

/** One form field that must appear exactly once. */
export function field(form: URLSearchParams, name: string, max = 1024): string | null {
  const all = form.getAll(name);
  if (all.length !== 1 || all[0]!.length > max) return null;
  return all[0]!;
}
