import type { LogStore } from '../../../core/sdk.ts';
import { newId } from '../domain/secrets.ts';
import type { AuditEvent } from './model.ts';

export interface AuditInput {
  actor_id?: string;
  client_id?: string;
  ip?: string;
  detail?: string;
}

export type AuditEventView = Omit<AuditEvent, 't'>;

export interface AuditQuery {
  action?: string;
  actor_id?: string;
  client_id?: string;
  sinceMs: number;
  untilMs?: number;
  limit: number;
  offset: number;
}

/** The audit trail (action names as the origin service uses them, docs/auth.md#behaviour-where-the-spec-is-silent), in a bounded log of its own. */
export function createAudit(log: LogStore<AuditEvent>, retentionMs: number) {
  return {
    record(action: string, input: AuditInput = {}): Promise<void> {
      const now = Date.now();
      return log.append({
        id: newId(),
        action,
        actor_id: input.actor_id ?? '',
        client_id: input.client_id ?? '',
        ip: input.ip ?? '',
        detail: input.detail ?? '',
        trace_id: '',
        created_at: new Date(now).toISOString(),
        t: now,
      });
    },
    query(q: AuditQuery): AuditEventView[] {
      const out: AuditEventView[] = [];
      let skip = q.offset;
      const floor = Math.max(q.sinceMs, Date.now() - retentionMs);
      for (let n = log.items.length - 1; n >= 0 && out.length < q.limit; n--) {
        const e = log.items[n]!;
        if (e.t < floor) break; // oldest first
        if (q.untilMs !== undefined && e.t > q.untilMs) continue;
        if (q.action && e.action !== q.action) continue;
        if (q.actor_id && e.actor_id !== q.actor_id) continue;
        if (q.client_id && e.client_id !== q.client_id) continue;
        if (skip-- > 0) continue;
        const { t: _t, ...view } = e;
        out.push(view);
      }
      return out;
    },
    count: () => log.items.length,
    prune: () => log.prune(),
    flush: () => log.flush(),
  };
}

export type Audit = ReturnType<typeof createAudit>;
