import type { WebSocket } from 'ws';
import type { HearthSocket } from './types.ts';

/** Past this many queued bytes a client is too slow to keep: it is dropped, not buffered without bound. */
export const MAX_BUFFERED_BYTES = 1 << 20;

export function wrapSocket(raw: WebSocket, maxBuffered = MAX_BUFFERED_BYTES): HearthSocket {
  const sendText = (text: string): boolean => {
    if (raw.readyState !== raw.OPEN) return false;
    if (raw.bufferedAmount > maxBuffered) {
      raw.terminate();
      return false;
    }
    raw.send(text);
    return true;
  };
  return {
    raw,
    sendText,
    sendJson: (value) => sendText(JSON.stringify(value)),
    close(code = 1000, reason = '') {
      raw.close(code, reason);
    },
  };
}
