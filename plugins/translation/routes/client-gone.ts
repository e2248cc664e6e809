import type { ServerResponse } from 'node:http';
import { HttpError } from '../../../core/sdk.ts';
import { Cancellation } from '../cancellation.ts';

/**
 * Fires when the client closes the connection before its answer is written (a client whose own timeout
 * passed gives up this way, then retries): the request stops waiting and may withdraw upstream work.
 * The status is never sent (nobody is there); it keeps the request log at debug level.
 */
export function clientGone(res: ServerResponse): Cancellation {
  const gone = new Cancellation();
  res.once('close', () => {
    if (!res.writableFinished) {
      gone.abort(
        new HttpError(499, 'client_closed_request', 'The client closed the connection before the answer.'),
      );
    }
  });
  return gone;
}
