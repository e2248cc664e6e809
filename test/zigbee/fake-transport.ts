/** An in-memory transport: records what the driver writes and feeds it bytes. */
import type { Transport } from '../../drivers/zigbee/znp/transport.ts';
import { encodeFrame, type Frame } from '../../drivers/zigbee/znp/unpi.ts';

export class FakeTransport implements Transport {
  readonly written: Buffer[] = [];
  #data: Array<(b: Buffer) => void> = [];
  #close: Array<(err?: Error) => void> = [];
  onWrite: ((b: Buffer) => void) | null = null;

  async write(bytes: Buffer): Promise<void> {
    this.written.push(bytes);
    this.onWrite?.(bytes);
  }
  onData(l: (b: Buffer) => void): void {
    this.#data.push(l);
  }
  onClose(l: (err?: Error) => void): void {
    this.#close.push(l);
  }
  feed(bytes: Buffer | Frame): void {
    const b = Buffer.isBuffer(bytes) ? bytes : encodeFrame(bytes);
    for (const l of this.#data) l(b);
  }
  drop(): void {
    for (const l of this.#close) l(new Error('gone'));
  }
  async close(): Promise<void> {}
}
