/**
 * The one error type routes throw. `status < 500` errors are exposed to the client as they are; 5xx
 * messages are replaced so internals never leak.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly expose: boolean;
  readonly headers: Record<string, string>;
  /** A complete body that replaces the router's error shape (e.g. OAuth error responses). */
  readonly body: Record<string, unknown> | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    extra: { headers?: Record<string, string>; body?: Record<string, unknown> } = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.expose = status < 500;
    this.headers = extra.headers ?? {};
    this.body = extra.body;
  }
}

export const badRequest = (message: string, code = 'bad_request') => new HttpError(400, code, message);
export const notFound = (message = 'not found', code = 'not_found') => new HttpError(404, code, message);
