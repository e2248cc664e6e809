import type { Duplex } from 'node:stream';

/** What one connection may cost the broker. */
export interface BrokerLimits {
  /** Largest packet accepted, fixed header included (MQTT 3.1.1 §2.2.3 allows up to 256 MiB). */
  maxPacketSize: number;
  /** Unsent bytes a client may fall behind by before its live messages are dropped or it is disconnected. */
  clientQueueBytes: number;
  /** A connection must send its CONNECT within this time. */
  connectTimeoutMs: number;
  /** Connections not yet accepted by a CONNACK at once; more are closed on arrival. */
  maxPendingConnections: number;
}

export const DEFAULT_LIMITS: BrokerLimits = {
  maxPacketSize: 1024 * 1024,
  clientQueueBytes: 256 * 1024,
  connectTimeoutMs: 10_000,
  maxPendingConnections: 256,
};

/**
 * Bytes a connection may send before its CONNACK: the CONNECT (client id, will, user name, password) and
 * anything a client pipelines behind it. Nobody has been authenticated yet, so this stays small whatever
 * `maxPacketSize` is.
 */
export const PRE_CONNACK_BYTES = 64 * 1024;

/**
 * Follows the MQTT fixed headers (§2.2) of what aedes reads from a connection, without copying: a header
 * announcing a packet over the limit stops the connection before any of its body is buffered (aedes'
 * parser would otherwise collect the whole announced length).
 */
export class PacketSizeScanner {
  /** Bytes of the current packet's body still to skip; -1 while reading a fixed header. */
  #bodyLeft = -1;
  #length = 0;
  #lengthBytes = 0;
  #inHeader = false;
  /** Bytes received so far while `limitFor` applied the pre-CONNACK budget. */
  #preConnack = 0;

  constructor(
    private readonly maxPacketSize: number,
    private readonly accepted: () => boolean,
  ) {}

  /** Returns a reason when `chunk` breaks a limit, else null. */
  feed(chunk: Buffer): string | null {
    if (!this.accepted()) {
      this.#preConnack += chunk.length;
      if (this.#preConnack > PRE_CONNACK_BYTES) return `more than ${PRE_CONNACK_BYTES} bytes before CONNACK`;
    }
    let i = 0;
    while (i < chunk.length) {
      if (this.#bodyLeft > 0) {
        const skip = Math.min(this.#bodyLeft, chunk.length - i);
        this.#bodyLeft -= skip;
        i += skip;
        continue;
      }
      if (!this.#inHeader) {
        // The first byte: packet type and flags.
        this.#inHeader = true;
        this.#length = 0;
        this.#lengthBytes = 0;
        i += 1;
        continue;
      }
      // Remaining Length: up to four bytes, seven bits each, least significant first (§2.2.3).
      const byte = chunk[i++]!;
      this.#length += (byte & 0x7f) * 128 ** this.#lengthBytes;
      this.#lengthBytes += 1;
      if (byte & 0x80) {
        if (this.#lengthBytes === 4) return 'malformed remaining length';
        continue;
      }
      this.#inHeader = false;
      const total = 1 + this.#lengthBytes + this.#length;
      const limit = this.accepted() ? this.maxPacketSize : Math.min(this.maxPacketSize, PRE_CONNACK_BYTES);
      if (total > limit) return `a packet of ${total} bytes (limit ${limit})`;
      this.#bodyLeft = this.#length;
    }
    return null;
  }
}

/**
 * Runs `check` on every chunk aedes takes from `stream` (it calls `read()` on 'readable'); a chunk that
 * breaks a limit is never handed over and the connection is destroyed.
 */
export function guardReads(
  stream: Duplex,
  check: (chunk: Buffer) => string | null,
  refused: (reason: string) => void,
) {
  const read = stream.read;
  stream.read = function guardedRead(this: Duplex, size?: number) {
    const chunk: unknown = read.call(this, size);
    if (!Buffer.isBuffer(chunk)) return chunk;
    const reason = check(chunk);
    if (reason === null) return chunk;
    refused(reason);
    this.destroy();
    return null;
  };
}

/** What the broker tells a connection's write shaper (see `shapeWrites`). */
export interface WriteShaper {
  /**
   * aedes has accepted a delivery to this connection (its `authorizeForward` said yes) and will write the
   * PUBLISH from a `setImmediate`: hold the socket until that write.
   */
  expect(): void;
}

/**
 * Two things about how the broker writes to one connection, in one wrapper of `stream.write` (it runs for
 * every piece of every packet: mqtt-packet writes a PUBLISH in four or five calls):
 *
 * - **Backpressure mark.** `write()` reports backpressure only past `mark` unsent bytes (instead of the
 *   16 KiB default). aedes holds a delivery slot shared by every client while it waits for a socket to
 *   drain, so a subscriber that stops reading would stall everyone; the broker drops or disconnects such a
 *   client by its queued bytes first (`clientQueueBytes`), and the mark only has to stay above that.
 * - **Deliveries leave together, and at once.** aedes decides a delivery synchronously (`expect()`), then
 *   writes it from its own `setImmediate`, and mqtt-packet corks the socket only until the next tick, so
 *   every message would be its own `writev` (a sixth of the broker's CPU per message went to it). The
 *   socket is corked from the first `expect()` and released as soon as every expected PUBLISH has been
 *   written: all deliveries decided in one turn of the event loop leave in one `writev`, in the same
 *   check phase as aedes' writes (mqtt-packet's own cork sends them on its next tick). If an expected write
 *   never comes (the client went away, a QoS 1/2 session waits for its store) the socket is released one
 *   turn later anyway. A PUBLISH written without an `expect()` (nothing the broker decided, e.g. a
 *   retransmission) corks the socket until the next `setImmediate`, as before. Other packets written to an
 *   uncorked socket (CONNACK, SUBACK, PUBACK, PINGRESP: answers a client waits for) go out at once; behind
 *   a held batch they wait with it, so the order stays. mqtt-packet writes a packet's header byte first;
 *   its high nibble is the packet type (3 = PUBLISH, MQTT 3.1.1 §2.2.1).
 */
export function shapeWrites(stream: Duplex, mark: number): WriteShaper {
  const write = stream.write;
  /** Our cork is on the socket (at most one at a time). */
  let corked = false;
  /** PUBLISH packets expected and not written yet. */
  let expected = 0;
  /** Counts releases: a scheduled release only applies to the batch it was scheduled for. */
  let batch = 0;
  /** The batch whose fallback release is scheduled. */
  let armedFor = -1;
  const release = () => {
    batch += 1;
    expected = 0;
    if (!corked) return;
    corked = false;
    stream.uncork();
  };
  const releaseIf = (id: number) => {
    if (id === batch) release();
  };
  const hold = () => {
    if (corked) return;
    corked = true;
    stream.cork();
  };
  // Named parameters, not `...args`: a rest array per call is garbage the 2 MB young generation feels.
  // Writable.write treats an absent encoding or callback as not given.
  stream.write = function shapedWrite(
    this: Duplex,
    chunk: unknown,
    encoding?: BufferEncoding | ((err?: Error | null) => void),
    cb?: (err?: Error | null) => void,
  ) {
    const publish = isPublishHeader(chunk);
    if (publish && expected === 0 && !corked) {
      hold();
      setImmediate(releaseIf, batch);
    }
    const ok = write.call(this, chunk, encoding as BufferEncoding, cb);
    // The header went in behind mqtt-packet's own cork, which holds the rest of this packet until its tick.
    if (publish && expected > 0 && --expected === 0) release();
    return ok || this.writableLength < mark;
  } as Duplex['write'];
  return {
    expect() {
      expected += 1;
      hold();
      if (armedFor === batch) return;
      armedFor = batch;
      // aedes queues its delivery immediates after this call, so a release queued now would run before
      // them: the fallback waits one turn more (where every batch used to be released).
      const id = batch;
      setImmediate(() => setImmediate(releaseIf, id));
    },
  };
}

const isPublishHeader = (chunk: unknown): boolean =>
  chunk instanceof Uint8Array && chunk.length > 0 && chunk[0]! >> 4 === 3;
