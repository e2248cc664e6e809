import type { LogStore } from '../../../core/sdk.ts';
import { decodeIssuance, encodeIssuance, jtiOf, parentOf } from './issuance-codec.ts';
import type { Issuance, Revocation } from './model.ts';

export interface IssuanceQuery {
  client?: string;
  user?: string;
  resource?: string;
  jti?: string;
  sinceMs?: number;
  limit: number;
  offset?: number;
}

export type IssuanceView = Omit<Issuance, 'family_id' | 'consent_grant_id' | 't'> & { revoked_at?: string };

/**
 * Issued access tokens and their revocations. Both live in bounded logs written apart from the
 * configuration document, so issuing a token never rewrites a large file (docs/auth.md#hot-records-stay-out-of-the-main-document); the revoked
 * `jti` set is in memory so verification needs no I/O and a revocation applies at once.
 */
export function createIssuanceRegistry(
  log: LogStore<string>,
  revocations: LogStore<Revocation>,
  retentionMs: number,
) {
  // jti → the issuance's log line (the same string the log holds). Insertion order is append order, so the
  // oldest entries are the first keys. Lines, not decoded objects: a token's record then costs no memory
  // beyond the log's own line, and the garbage collector has one string per token to move, not an object
  // graph (issuing is the hot path). Readers decode the lines they look at.
  const byJti = new Map<string, string>();
  const revoked = new Map<string, string>();
  // parent jti → jtis exchanged from it (RFC 8693), so a revocation reaches them without a scan.
  const children = new Map<string, string[]>();
  const addChild = (parent: string, child: string) => {
    const list = children.get(parent);
    if (list) list.push(child);
    else children.set(parent, [child]);
  };
  const index = () => {
    byJti.clear();
    children.clear();
    for (const line of log.items) {
      const jti = jtiOf(line);
      if (!jti) continue;
      byJti.set(jti, line);
      const parent = parentOf(line);
      if (parent) addChild(parent, jti);
    }
    revoked.clear();
    for (const r of revocations.items) revoked.set(r.jti, r.revoked_at);
  };
  index();

  // Revocation cascades of the last minute, numbered: a token being signed while one ran could not be seen
  // by it, so issuance checks the cascades that started since it began (see `revokedSince`).
  let cascadeSeq = 0;
  const cascades: Array<{ seq: number; at: number; match: (i: Issuance) => boolean }> = [];

  const view = (i: Issuance): IssuanceView => {
    const { family_id: _f, consent_grant_id: _c, t: _t, ...rest } = i;
    const at = revoked.get(i.jti);
    return at ? { ...rest, revoked_at: at } : rest;
  };
  const decoded = (line: string | undefined): Issuance | undefined =>
    line === undefined ? undefined : (decodeIssuance(line) ?? undefined);

  return {
    async record(i: Issuance): Promise<void> {
      const line = encodeIssuance(i);
      byJti.set(i.jti, line);
      if (i.parent_jti) addChild(i.parent_jti, i.jti);
      await log.append(line);
      // The log drops its oldest lines when full; forget the same number of oldest entries here.
      let excess = byJti.size - log.items.length;
      if (excess <= 0) return;
      for (const jti of byJti.keys()) {
        if (excess-- <= 0) break;
        byJti.delete(jti);
        children.delete(jti);
      }
    },
    isRevoked: (jti: string): boolean => revoked.has(jti),
    /** The jtis of tokens exchanged from this one (one level). */
    childrenOf: (jti: string): readonly string[] => children.get(jti) ?? [],
    /** Revokes one token; returns false when it was already revoked. */
    async revoke(jti: string, expMs: number): Promise<boolean> {
      if (revoked.has(jti)) return false;
      const at = new Date().toISOString();
      revoked.set(jti, at);
      await revocations.append({ jti, revoked_at: at, exp: expMs }, { durable: true });
      return true;
    },
    get: (idOrJti: string) => {
      const i = decoded(byJti.get(idOrJti));
      return i ? view(i) : undefined;
    },
    raw: (jti: string) => decoded(byJti.get(jti)),
    /** Every recorded issuance matching `pred` (for cascades: a refresh family, a consent grant, a user). */
    where(pred: (i: Issuance) => boolean): Issuance[] {
      const out: Issuance[] = [];
      for (const line of byJti.values()) {
        const i = decodeIssuance(line);
        if (i && pred(i)) out.push(i);
      }
      return out;
    },
    query(q: IssuanceQuery): IssuanceView[] {
      const out: IssuanceView[] = [];
      let skip = q.offset ?? 0;
      const floor = Math.max(q.sinceMs ?? 0, Date.now() - retentionMs);
      const all = q.jti ? [byJti.get(q.jti)].filter((x) => x !== undefined) : [...byJti.values()];
      // Newest first.
      for (let n = all.length - 1; n >= 0 && out.length < q.limit; n--) {
        const i = decodeIssuance(all[n]!);
        if (!i) continue;
        if (q.client && i.client_id !== q.client) continue;
        if (q.user && i.subject_user_id !== q.user) continue;
        if (q.resource && i.resource_id !== q.resource) continue;
        if (q.jti && i.jti !== q.jti) continue;
        if (i.t < floor) break; // oldest first: everything before this is older still
        if (skip > 0) {
          skip--;
          continue;
        }
        out.push(view(i));
      }
      return out;
    },
    /** Records that a cascade revoking every token `match` accepts has started. */
    noteCascade(match: (i: Issuance) => boolean): void {
      const now = Date.now();
      while (cascades.length > 0 && cascades[0]!.at < now - 60_000) cascades.shift();
      cascades.push({ seq: ++cascadeSeq, at: now, match });
    },
    /** A mark to pass to `revokedSince` later. */
    cascadeMark: (): number => cascadeSeq,
    /** Whether a cascade that started after `mark` covers this issuance. */
    revokedSince(mark: number, i: Issuance): boolean {
      // Newest first, and only those after the mark: on the hot path this is usually no iteration at all.
      for (let n = cascades.length - 1; n >= 0 && cascades[n]!.seq > mark; n--)
        if (cascades[n]!.match(i)) return true;
      return false;
    },
    count: () => byJti.size,
    revokedCount: () => revoked.size,
    /** Applies retention to both logs and re-indexes. */
    prune(): void {
      if (log.prune() + revocations.prune() > 0) index();
    },
    flush: async () => {
      await Promise.all([log.flush(), revocations.flush()]);
    },
  };
}

export type IssuanceRegistry = ReturnType<typeof createIssuanceRegistry>;
