import type { IncomingMessage } from 'node:http';
import { invalid, tooLarge, unsupportedMediaType } from '../errors.ts';
import { setOwn } from '../own.ts';

/** spec: "total request size at most 128 KiB". */
export const MAX_BODY_BYTES = 128 * 1024;

/**
 * A request's parameters as sent: JSON keeps its types, a form keeps every repeated value (URLSearchParams,
 * so 21+ repeated `text` fields never become an object, docs/translation.md#wire-format-of-the-official-clients).
 */
export type RawParams =
  | { kind: 'json'; values: Record<string, unknown> }
  | { kind: 'form'; values: Map<string, string[]> };

/** Reads the body up to the limit; a larger body is refused with 413 without buffering the rest. */
export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw tooLarge(limit);
  }
  // Plain listeners: cheaper per request than async iteration (this path is in the overhead budget). The
  // listener is an inline function: tsx names every `const f = () => …` at run time, per request.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      if (size > limit) return; // already refused: the rest is drained unread
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

export function formParams(text: string): RawParams {
  const values = new Map<string, string[]>();
  for (const [name, value] of new URLSearchParams(text)) {
    const list = values.get(name);
    if (list) list.push(value);
    else values.set(name, [value]);
  }
  return { kind: 'form', values };
}

/**
 * Parses JSON or form by Content-Type. An empty body is no body, whatever its Content-Type says: many HTTP
 * clients send `Content-Type: application/json` on every request, GETs included, so it counts as no
 * parameters (the query's, on GET routes), never as malformed JSON.
 */
export function parseParams(contentType: string | undefined, body: Buffer): RawParams {
  if (body.length === 0) return formParams('');
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'application/json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      throw invalid('Request body is not valid JSON.');
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw invalid('Request body must be a JSON object.');
    }
    return { kind: 'json', values: parsed as Record<string, unknown> };
  }
  if (type === 'application/x-www-form-urlencoded' || type === '') return formParams(body.toString('utf8'));
  throw unsupportedMediaType();
}

/** The parameters of a request body (JSON or form). */
export async function requestParams(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<RawParams> {
  return parseParams(req.headers['content-type'], await readBody(req, limit));
}

/**
 * The parameters of a request that may carry them in the query, the body or both: DeepL's own clients send
 * `GET /v2/languages` with `type=target` in a form body (the Python client) or in the query (deepl-node),
 * and the real API reads either. A name given in both places with different values is ambiguous (400).
 */
export async function queryAndBodyParams(
  req: IncomingMessage,
  querystring: string,
  limit = MAX_BODY_BYTES,
): Promise<RawParams> {
  const body = await requestParams(req, limit);
  const query = new URLSearchParams(querystring);
  if (query.size === 0) return body;
  for (const name of new Set(query.keys())) {
    const fromQuery = query.getAll(name);
    if (body.kind === 'json') {
      if (!Object.hasOwn(body.values, name)) {
        setOwn(body.values, name, fromQuery.length === 1 ? fromQuery[0] : fromQuery);
      } else if (fromQuery.length !== 1 || body.values[name] !== fromQuery[0]) {
        throw invalid(`Parameter '${name}' is given in both the query and the body.`);
      }
      continue;
    }
    const fromBody = body.values.get(name);
    if (!fromBody) body.values.set(name, fromQuery);
    else if (fromBody.join('\u0000') !== fromQuery.join('\u0000')) {
      throw invalid(`Parameter '${name}' is given in both the query and the body.`);
    }
  }
  return body;
}
