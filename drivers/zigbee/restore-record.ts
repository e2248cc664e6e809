/**
 * A restore's outcome as the store keeps it (docs/zigbee.md#when-the-stick-does-not-start-after-a-restore):
 * written before the reset that makes the stick take the old coordinator's identity, so that a start
 * attempt failing after it (stick unplugged, silent, erroring) does not lose what was written and what
 * was refused; made final by the first start that succeeds, and kept until the next restore.
 */
import type { RestoreOutcome, StartResult } from './radio.ts';
import type { StickSecurity } from './znp/nv-backup.ts';

export interface RestoreRecord {
  /**
   * `started`: the restore is on its way to the stick, nothing of its identity is known to be written;
   * `written`: the stick has it and was reset, its start not yet seen; `done`: the stick started with it.
   */
  state: 'started' | 'written' | 'done';
  /** When the state last changed (ISO 8601). */
  at: string;
  outcome: RestoreOutcome;
  /** Why the last start attempt failed, while the restore is not done. */
  lastError?: string;
}

const UNBOUND = 'devices bound to the old coordinator report nothing until they are paired again';

/** What a restore is about to carry onto the stick, before anything is written. */
export function startedRecord(security: StickSecurity, now = new Date()): RestoreRecord {
  const outcome: RestoreOutcome = {};
  if (security.coordinatorIeee) outcome.ieee = { wanted: security.coordinatorIeee, taken: false };
  const keys = security.linkKeys?.length ?? 0;
  if (keys) outcome.linkKeys = { written: 0, of: keys };
  return { state: 'started', at: now.toISOString(), outcome };
}

/**
 * A retry finds the address already on the stick (`via: already`): where an earlier attempt of the same
 * restore wrote it is what the operator needs to know, so that is kept.
 */
function keepWay(outcome: RestoreOutcome, before: RestoreRecord | null): RestoreOutcome {
  const out = structuredClone(outcome);
  const was = before?.outcome.ieee;
  if (out.ieee?.via === 'already' && was?.via && was.via !== 'already' && was.wanted === out.ieee.wanted)
    out.ieee = { ...out.ieee, via: was.via, ...(was.note ? { note: was.note } : {}) };
  return out;
}

/** The record once the stick has taken what the restore wrote (before the reset that follows). */
export function writtenRecord(
  outcome: RestoreOutcome,
  before: RestoreRecord | null = null,
  now = new Date(),
): RestoreRecord {
  return { state: 'written', at: now.toISOString(), outcome: keepWay(outcome, before) };
}

/**
 * The outcome once a start succeeded: the start's own when it restored, else the stored record checked
 * against the stick as it came up (its IEEE address says whether the old coordinator's was taken).
 */
export function finalRecord(record: RestoreRecord, r: StartResult, now = new Date()): RestoreRecord {
  const at = now.toISOString();
  if (r.restore) return { state: 'done', at, outcome: keepWay(r.restore, record) };
  const outcome = structuredClone(record.outcome);
  const interrupted = record.state === 'started';
  if (outcome.ieee) {
    const taken = outcome.ieee.wanted === r.ieee;
    outcome.ieee.taken = taken;
    if (taken) delete outcome.ieee.reason;
    else if (!outcome.ieee.reason)
      outcome.ieee.reason = interrupted
        ? `the restore was interrupted before the stick took the old coordinator's address; ${UNBOUND}`
        : `the stick kept its own IEEE address after the reset; ${UNBOUND}`;
  }
  if (outcome.linkKeys && interrupted)
    outcome.linkKeys = {
      written: 0,
      of: outcome.linkKeys.of,
      reason:
        "the restore was interrupted before the devices' link keys were written; those devices have to join again",
    };
  return { state: 'done', at, outcome };
}

/** The record after a failed start attempt: unchanged but for why. */
export function failedAttempt(record: RestoreRecord, err: unknown): RestoreRecord {
  const lastError = err instanceof Error ? err.message : String(err);
  return { ...record, lastError };
}
