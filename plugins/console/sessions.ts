/**
 * Console sessions: the admin key is entered once; the browser then holds only a random session id in an
 * HttpOnly, SameSite=Strict cookie. The key stays in this process's memory to call the admin API on the
 * session's behalf, so rotating the admin key ends every key session at its next call. A session opened
 * with the owner password acts with this run's token instead, which a rotation does not touch.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

/** How the session was opened: the admin key, or the owner password (acting with this run's token). */
export type SessionKind = 'key' | 'password';

export interface Session {
  /** The credential the session calls the admin API with. */
  key: string;
  kind: SessionKind;
  csrf: string;
  expires: number;
}

const MAX_SESSIONS = 64;

export class Sessions {
  readonly #byId = new Map<string, Session>();
  readonly #idleMs: number;

  constructor(idleMs: number) {
    this.#idleMs = idleMs;
  }

  create(key: string, kind: SessionKind): { id: string; session: Session } {
    const id = randomBytes(32).toString('base64url');
    const session = {
      key,
      kind,
      csrf: randomBytes(24).toString('base64url'),
      expires: Date.now() + this.#idleMs,
    };
    this.#byId.set(id, session);
    // Oldest first: a Map iterates in insertion order.
    while (this.#byId.size > MAX_SESSIONS) this.#byId.delete(this.#byId.keys().next().value!);
    return { id, session };
  }

  /** The live session of a cookie value, its idle time renewed; null when unknown or expired. */
  get(id: string | undefined): Session | null {
    if (!id) return null;
    const s = this.#byId.get(id);
    if (!s) return null;
    if (s.expires < Date.now()) {
      this.#byId.delete(id);
      return null;
    }
    s.expires = Date.now() + this.#idleMs;
    return s;
  }

  end(id: string | undefined): void {
    if (id) this.#byId.delete(id);
  }

  static csrfMatches(s: Session, presented: string | undefined): boolean {
    const a = Buffer.from(s.csrf);
    const b = Buffer.from(presented ?? '');
    return a.length === b.length && timingSafeEqual(a, b);
  }
}
