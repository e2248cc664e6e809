/**
 * MQTT 3.1.1 §1.5.3: a string is well-formed UTF-8 (no surrogates, no overlong forms) and never contains
 * U+0000; a server that receives one that breaks this MUST close the connection [MQTT-1.5.3-1, -2].
 * aedes' parser decodes strings leniently (an invalid byte becomes U+FFFD, so a client id with one was
 * accepted with CONNACK 0), so the raw bytes are checked here, before aedes reads them: every string of
 * CONNECT (protocol name, client id, will topic, user name), the topic of PUBLISH and the filters of
 * SUBSCRIBE and UNSUBSCRIBE. Will payloads and passwords are binary data, not strings.
 */

const CONNECT = 1;
const PUBLISH = 3;
const SUBSCRIBE = 8;
const UNSUBSCRIBE = 10;

const strict = new TextDecoder('utf-8', { fatal: true });

/** Whether `bytes` is an MQTT UTF-8 string: well-formed UTF-8 without U+0000. */
export function isMqttString(bytes: Uint8Array): boolean {
  if (bytes.includes(0)) return false;
  try {
    strict.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The strings of a packet body, or null when the body is malformed otherwise (aedes' parser refuses that). */
function stringsOf(type: number, body: Buffer): Buffer[] | null {
  const out: Buffer[] = [];
  let pos = 0;
  const string = (): boolean => {
    if (pos + 2 > body.length) return false;
    const end = pos + 2 + body.readUInt16BE(pos);
    if (end > body.length) return false;
    out.push(body.subarray(pos + 2, end));
    pos = end;
    return true;
  };
  if (type === PUBLISH) return string() ? out : null;
  if (type === CONNECT) {
    if (!string()) return null; // protocol name
    const flags = body[pos + 1];
    pos += 4; // level, flags, keep alive
    if (flags === undefined || !string()) return null; // client id
    if (flags & 0x04) {
      if (!string()) return null; // will topic
      const willTopic = out.pop();
      if (!string()) return null; // will payload: binary
      out.pop();
      if (willTopic) out.push(willTopic);
    }
    if (flags & 0x80 && !string()) return null; // user name
    return out;
  }
  pos = 2; // packet identifier
  while (pos < body.length) {
    if (!string()) return null;
    if (type === SUBSCRIBE) pos += 1; // requested QoS
  }
  return out;
}

/**
 * Follows the fixed headers (§2.2) of what a connection sends and keeps only the bytes that hold strings:
 * the whole body of CONNECT, SUBSCRIBE and UNSUBSCRIBE (small, and bounded by the packet size limit) and
 * the topic of a PUBLISH (its payload is skipped, never copied).
 */
export class PacketStringScanner {
  #inHeader = false;
  #type = 0;
  #length = 0;
  #lengthBytes = 0;
  /** Body bytes of the current packet not yet seen. */
  #bodyLeft = 0;
  /** How many leading body bytes to keep, and those kept so far. */
  #keep = 0;
  #kept: Buffer[] = [];
  #keptBytes = 0;
  /** A PUBLISH whose topic length is known. */
  #topicSized = false;

  /** Returns a reason when `chunk` completes a packet with a malformed string, else null. */
  feed(chunk: Buffer): string | null {
    let i = 0;
    while (i < chunk.length) {
      if (this.#bodyLeft > 0) {
        const want = this.#keep - this.#keptBytes;
        const n = Math.min(this.#bodyLeft, chunk.length - i, want > 0 ? want : Number.POSITIVE_INFINITY);
        if (want > 0) {
          this.#kept.push(chunk.subarray(i, i + n));
          this.#keptBytes += n;
        }
        this.#bodyLeft -= n;
        i += n;
        if (want > 0 && this.#keptBytes === this.#keep) {
          const reason = this.#keptComplete();
          if (reason) return reason;
        }
        continue;
      }
      if (!this.#inHeader) {
        this.#inHeader = true;
        this.#type = chunk[i]! >> 4;
        this.#length = 0;
        this.#lengthBytes = 0;
        i += 1;
        continue;
      }
      const byte = chunk[i++]!;
      this.#length += (byte & 0x7f) * 128 ** this.#lengthBytes;
      this.#lengthBytes += 1;
      // A fifth length byte is the size scanner's to refuse.
      if (byte & 0x80 && this.#lengthBytes < 4) continue;
      this.#inHeader = false;
      this.#bodyLeft = this.#length;
      this.#kept = [];
      this.#keptBytes = 0;
      this.#topicSized = false;
      const whole = this.#type === CONNECT || this.#type === SUBSCRIBE || this.#type === UNSUBSCRIBE;
      this.#keep = this.#type === PUBLISH ? Math.min(2, this.#length) : whole ? this.#length : 0;
    }
    return null;
  }

  #keptComplete(): string | null {
    const body = this.#kept.length === 1 ? this.#kept[0]! : Buffer.concat(this.#kept);
    if (this.#type === PUBLISH && !this.#topicSized && body.length === 2) {
      // The topic's length is known now: keep the topic, skip the payload.
      this.#topicSized = true;
      this.#keep = Math.min(2 + body.readUInt16BE(0), this.#length);
      this.#kept = [body];
      if (this.#keptBytes < this.#keep) return null;
    }
    this.#keep = 0;
    this.#kept = [];
    const strings = stringsOf(this.#type, body);
    if (strings === null || strings.every(isMqttString)) return null;
    return 'malformed UTF-8 string (MQTT 3.1.1 §1.5.3)';
  }
}
