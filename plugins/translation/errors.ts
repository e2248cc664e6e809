import { HttpError } from '../../core/sdk.ts';

/**
 * The translation API's error vocabulary. Bodies are DeepL's `{ message }` (docs/translation.md#errors-and-client-retries). Status codes
 * are chosen so that clients retry only what is worth retrying: deepl-node retries 429 and every 5xx,
 * never 400 or 456 (docs/translation.md#errors-and-client-retries "Client behaviour").
 */
export const invalid = (message: string) => new HttpError(400, 'bad_request', message);

/** DeepL's wording for an enumeration or type mismatch, naming the parameter. */
export const notSupported = (param: string) => invalid(`Value for '${param}' not supported.`);

export const notSpecified = (param: string) => invalid(`Parameter '${param}' not specified.`);

export const forbidden = (message = 'Forbidden') => new HttpError(403, 'forbidden', message);

export const notFoundError = (message: string) => new HttpError(404, 'not_found', message);

export const tooLarge = (limit = 128 * 1024) =>
  new HttpError(
    413,
    'payload_too_large',
    `Request body exceeds ${limit / 1024 >= 1024 ? `${limit / 1048576} MiB` : `${limit / 1024} KiB`}.`,
  );

export const unsupportedMediaType = () =>
  new HttpError(
    415,
    'unsupported_media_type',
    'Content-Type must be application/json or application/x-www-form-urlencoded.',
  );

/** 456: a key-level or upstream quota; not retried by clients. */
export const quotaExceeded = (message = 'Quota for this billing period has been exceeded.') =>
  new HttpError(456, 'quota_exceeded', message);

/** A key at its character limit asked for billed work (usage and the language lists still answer; README). */
export const keyLimitReached = () =>
  quotaExceeded('Quota exceeded: the character limit of this key has been reached.');

/** Transient pressure: clients back off and retry. */
export const unavailable = (message: string, status: 429 | 503 = 503, retryAfterS = 1) =>
  new HttpError(status, status === 429 ? 'too_many_requests' : 'unavailable', message, {
    headers: { 'Retry-After': String(retryAfterS) },
  });
