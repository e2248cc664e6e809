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
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > LIMIT) throw new FormError('form too large');
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

/** One form field that must appear exactly once. */
export function field(form: URLSearchParams, name: string, max = 1024): string | null {
  const all = form.getAll(name);
  if (all.length !== 1 || all[0]!.length > max) return null;
  return all[0]!;
}
