import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Availability } from './availability.ts';
import { accessLine, requestId } from './middleware/basics.ts';
import { errorAnswer } from './middleware/errors.ts';
import type { DirectRoute } from './types.ts';

/** Told the route template, method, status and duration of each answered request (the latency metric). */
export type ObserveRequest = (route: unknown, method: string, status: number, seconds: number) => void;

/**
 * Answers one request of a direct route (see `HttpApi.direct`) without Koa, with everything the listener's
 * middleware gives a Koa route's answer: the request id, counting as in flight, errors in the route's
 * shape (5xx logged, never shown), `nosniff`, the access-log line and the latency metric. Only called
 * when the hub is ready: in any other phase the listener's Koa stack answers (503 while restoring).
 */
export async function serveDirect(
  route: DirectRoute,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  params: Readonly<Record<string, string>>,
  query: string,
  env: { log: Logger; availability: Availability; observe: ObserveRequest | undefined },
): Promise<void> {
  const startedAt = performance.now();
  const reqId = requestId(req.headers['x-request-id']);
  res.setHeader('X-Request-Id', reqId);
  let status = 200;
  let body: unknown;
  env.availability.enter();
  try {
    body = await route.handle({ req, res, path, params, querystring: query });
  } catch (err) {
    const answer = errorAnswer(env.log, reqId, err, route.errorBody);
    status = answer.status;
    for (const name in answer.headers) res.setHeader(name, answer.headers[name] as string);
    body = answer.body;
  } finally {
    env.availability.leave();
  }
  res.setHeader('X-Content-Type-Options', 'nosniff'); // JSON only: the HTML headers never apply
  const method = req.method ?? '';
  accessLine(env.log, reqId, method, req.url, status, startedAt);
  env.observe?.(route.path, method, status, (performance.now() - startedAt) / 1000);
  // Like Koa: nothing more to write once the client has gone or the answer was ended.
  if (res.writableEnded || (res.socket !== null && !res.socket.writable)) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
