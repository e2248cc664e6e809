import type { Context } from 'koa';
import type { Logger } from 'pino';
import { HttpError } from '../errors.ts';
import type { RouterOptions } from '../types.ts';

type ErrorBody = NonNullable<RouterOptions['errorBody']>;

const defaultBody: ErrorBody = ({ code, message }) => ({ error: code, message });

interface Normalised {
  status: number;
  code: string;
  message: string;
  headers: Record<string, string>;
  body: Record<string, unknown> | undefined;
}

/** An error of a zlib decompression stream: the body does not decode as its Content-Encoding says. */
function isDecodeError(err: unknown): boolean {
  const { code, errno } = err as { code?: unknown; errno?: unknown };
  return typeof code === 'string' && typeof errno === 'number' && /^(Z_|ERR__ERROR_)/.test(code);
}

/** A write the data disk refused (full, over quota, read-only): the store has undone the change. */
const STORAGE_CODES = new Set(['ENOSPC', 'EDQUOT', 'EROFS']);
const isStorageError = (err: unknown): boolean =>
  typeof err === 'object' && err !== null && STORAGE_CODES.has(String((err as { code?: unknown }).code));

/** Maps whatever was thrown to a status, a stable code and a message safe to show. */
function normalise(err: unknown): Normalised {
  if (err instanceof HttpError) {
    return { status: err.status, code: err.code, message: err.message, headers: err.headers, body: err.body };
  }
  const e = err as {
    status?: unknown;
    statusCode?: unknown;
    type?: unknown;
    expose?: unknown;
    message?: unknown;
  };
  const status = Number(e.status ?? e.statusCode);
  // The JSON is valid but has a `__proto__` key, which co-body's parser refuses outright.
  if (err instanceof SyntaxError && e.message === 'Object contains forbidden prototype property') {
    return {
      status: 400,
      code: 'forbidden_key',
      message: 'Request body must not use __proto__ as a key',
      headers: {},
      body: undefined,
    };
  }
  // co-body rethrows JSON.parse's SyntaxError with status 400; its text may quote the body, so it is not shown.
  if (e.type === 'entity.parse.failed' || (err instanceof SyntaxError && status === 400)) {
    return {
      status: 400,
      code: 'malformed_json',
      message: 'Request body is not valid JSON',
      headers: {},
      body: undefined,
    };
  }
  // zlib's stream errors: Z_DATA_ERROR… for gzip/deflate, ERR__ERROR_… (BrotliDecoderErrorCode names) for br.
  if (isDecodeError(err)) {
    return {
      status: 400,
      code: 'malformed_body',
      message: 'Request body does not match its Content-Encoding',
      headers: {},
      body: undefined,
    };
  }
  // RFC 9110 §15.6.4: a temporary condition; the change was undone, so the client may simply retry.
  if (isStorageError(err)) {
    return {
      status: 503,
      code: 'storage_unavailable',
      message: 'The change was not saved: the data disk is full or read-only. Nothing was changed.',
      headers: { 'Retry-After': '60' },
      body: undefined,
    };
  }
  if (
    status === 415 &&
    typeof e.message === 'string' &&
    e.message.startsWith('Unsupported Content-Encoding')
  ) {
    return {
      status: 415,
      code: 'unsupported_encoding',
      message: 'Content-Encoding must be gzip, deflate, br or identity',
      headers: { 'Accept-Encoding': 'gzip, deflate, br' },
      body: undefined,
    };
  }
  if (e.type === 'entity.too.large' || status === 413) {
    return {
      status: 413,
      code: 'body_too_large',
      message: 'Request body is too large',
      headers: {},
      body: undefined,
    };
  }
  if (Number.isInteger(status) && status >= 400 && status < 500) {
    const message = e.expose !== false && typeof e.message === 'string' ? e.message : 'Bad request';
    return { status, code: 'bad_request', message, headers: {}, body: undefined };
  }
  return {
    status: 500,
    code: 'internal_error',
    message: 'Internal server error',
    headers: {},
    body: undefined,
  };
}

/** The answer to an error: status, extra headers and the JSON body. */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

/**
 * What to answer for whatever was thrown, in the shape of the router that handled the request (`shape`;
 * the default `{ error, message }` without one); 5xx never leak, and are logged here.
 */
export function errorAnswer(
  log: Logger,
  reqId: unknown,
  err: unknown,
  shape: ErrorBody | undefined,
): ErrorAnswer {
  const n = normalise(err);
  // A full disk is reported once by the store's notice; each refused request is a short line, not a stack.
  if (n.code === 'storage_unavailable') log.warn({ reqId }, 'request refused: data disk not writable');
  else if (n.status >= 500) log.error({ err, reqId }, 'request failed');
  return {
    status: n.status,
    headers: n.headers,
    body: n.body ?? (shape ?? defaultBody)({ status: n.status, code: n.code, message: n.message }),
  };
}

/** Answers whatever was thrown with a JSON body in the shape of the router that handled the request; 5xx never leak. */
export function answerError(log: Logger, ctx: Context, err: unknown): void {
  const answer = errorAnswer(log, ctx.state.reqId, err, ctx.state.errorBody as ErrorBody | undefined);
  ctx.status = answer.status;
  ctx.set(answer.headers);
  ctx.body = answer.body;
}
