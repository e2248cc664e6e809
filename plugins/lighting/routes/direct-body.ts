/**
 * The JSON body of a direct route (core `HttpApi.direct`), read without Koa and koa-body but answered the
 * same: the router's parser (koa-body, strict JSON, `__proto__` refused) and the listener's error answers.
 * Only plain bodies are taken here; the rest go to Koa, whose parser handles them (see `acceptsJsonBody`).
 */
import type { IncomingMessage } from 'node:http';
import { HttpError } from '../../../core/sdk.ts';

/** A light command is a few dozen bytes; anything much larger is left to Koa's parser. */
const DIRECT_BODY_MAX = 16 * 1024;

/** The Content-Type values taken here (lower-cased); koa-body reads every JSON body as UTF-8 whatever its charset. */
const JSON_TYPES = new Set([
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=utf-8',
]);

/**
 * Whether the body can be read here: `application/json`, a Content-Length from 1 to the limit, no
 * Transfer-Encoding or Content-Encoding. Anything else (chunked, compressed, another type, no body, too
 * large) goes to Koa and gets the answers it always got (400, 413, 415).
 */
export function acceptsJsonBody(req: IncomingMessage, bodyLimit: number): boolean {
  const h = req.headers;
  if (h['transfer-encoding'] !== undefined || h['content-encoding'] !== undefined) return false;
  const type = h['content-type'];
  if (type === undefined || !JSON_TYPES.has(type.toLowerCase())) return false;
  const length = Number(h['content-length']);
  return Number.isInteger(length) && length > 0 && length <= Math.min(bodyLimit, DIRECT_BODY_MAX);
}

/** co-body's strict mode: the text must start with an object or an array (RFC 8259 whitespace first). */
const STRICT_START = /^[ \t\n\r]*[[{]/;

/** Where the text may name `__proto__` (plainly or with \u escapes), the parsed value is scanned for it. */
const PROTO_SUSPECT = /__proto__|\\u/;

/** Reads and parses the body `acceptsJsonBody` took; 400 in the listener's words when it is not JSON. */
export function readJsonBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let ended = false;
    req.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
    });
    req.once('end', () => {
      ended = true;
      try {
        resolve(parseJson(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
      } catch (err) {
        reject(err);
      }
    });
    req.once('error', reject);
    // A client that goes mid-body: the request must still leave (it is counted as in flight).
    req.once('close', () => {
      if (!ended) reject(new HttpError(400, 'bad_request', 'request aborted'));
    });
  });
}

const malformed = () => new HttpError(400, 'malformed_json', 'Request body is not valid JSON');

/** Strict JSON as the router's parser takes it: a leading BOM dropped, an object or array, no `__proto__` key. */
export function parseJson(body: Buffer): unknown {
  let text = body.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (!STRICT_START.test(text)) throw malformed();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw malformed();
  }
  if (PROTO_SUSPECT.test(text) && hasProtoKey(parsed)) {
    throw new HttpError(400, 'forbidden_key', 'Request body must not use __proto__ as a key');
  }
  return parsed;
}

/** Whether any object in the parsed value has an own `__proto__` key (JSON.parse makes it an own property). */
function hasProtoKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Object.hasOwn(value, '__proto__')) return true;
  for (const v of Object.values(value)) if (hasProtoKey(v)) return true;
  return false;
}
