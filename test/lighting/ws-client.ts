/** A real `ws` client that collects `{command, data}` messages and waits for the ones a test expects. */
import WebSocket from 'ws';

export interface Msg {
  command: string;
  id?: unknown;
  // biome-ignore lint/suspicious/noExplicitAny: message payloads are inspected field by field
  data: any;
}

export class SiteSocket {
  readonly messages: Msg[] = [];
  readonly #waiters: Array<{ match: (m: Msg) => boolean; resolve: (m: Msg) => void }> = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (raw) => {
      const msg = JSON.parse(raw.toString()) as Msg;
      this.messages.push(msg);
      for (const w of [...this.#waiters]) {
        if (w.match(msg)) {
          this.#waiters.splice(this.#waiters.indexOf(w), 1);
          w.resolve(msg);
        }
      }
    });
  }

  /** `protocols`: offered subprotocols (how a browser passes a token). */
  static open(
    url: string,
    headers: Record<string, string> = {},
    protocols: string[] = [],
  ): Promise<SiteSocket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url.replace(/^http/, 'ws'), protocols, { headers });
      const s = new SiteSocket(ws);
      ws.once('open', () => resolve(s));
      ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
      ws.once('error', reject);
    });
  }

  /** Resolves with the first message (already received or future) that matches. */
  next(command: string, match: (data: Msg['data']) => boolean = () => true, from = 0): Promise<Msg> {
    const test = (m: Msg) => m.command === command && match(m.data);
    const seen = this.messages.slice(from).find(test);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.#waiters.push({ match: test, resolve }));
  }

  send(command: string, data: unknown, id?: unknown): void {
    this.ws.send(JSON.stringify({ command, data, ...(id === undefined ? {} : { id }) }));
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.ws.readyState === WebSocket.CLOSED) return resolve();
      this.ws.once('close', () => resolve());
      this.ws.close();
    });
  }
}
