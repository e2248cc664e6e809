import type { ServerResponse } from 'node:http';
import { HttpError } from '../../../core/http/errors.ts';

/**
 * Aborts when the client closes the connection before its answer is written (a client whose own timeout
 * passed gives up this way, then retries): the request stops waiting and may withdraw upstream work.
 * The status is never sent (nobody is there); it keeps the request log at debug level.
 */
export function clientGone(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) {
      controller.abort(
        new HttpError(499, 'client_closed_request', 'The client closed the connection before the answer.'),
      );
    }
  });
  return controller.signal;
}
