import { Low } from 'lowdb';
import type { Logger } from 'pino';
import { fileLabel } from './atomic-write.ts';
import { StoreError } from './errors.ts';
import { DurableJsonFile } from './json-file-adapter.ts';
import type { DocStore } from './types.ts';
import { applyUndo, takeSnapshot, undoFor } from './undo.ts';
import type { WriteGate } from './write-gate.ts';

export interface DocStoreDeps {
  log: Logger;
  gate: WriteGate;
  coalesceMs: number;
  onWrite?: ((info: { file: string; ms: number }) => void) | undefined;
  /** Told after every write attempt: the error of a failed one, `null` for a success (disk health). */
  onWriteResult?: ((file: string, doc: { readonly owed: boolean }, err: unknown) => void) | undefined;
}

/** After a failed background write, wait at least this long before trying again (no log floods). */
const RETRY_MS = 1000;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * One lowdb file with coalesced and group-committed writes. Every change bumps `#version`; a write snapshots
 * the data and the version it covers at the moment it starts, so one write serves every commit that was
 * waiting for it, and a commit that arrives during a write joins the next one.
 */
export class JsonDocStore<T extends object> implements DocStore<T> {
  readonly file: string;
  readonly #low: Low<T>;
  readonly #deps: DocStoreDeps;
  #version = 0;
  #durable = 0;
  #inFlight: Promise<void> | null = null;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;
  /** Commits applied in memory whose write has not succeeded yet, oldest first: undone if it fails. */
  #pending: Array<{ version: number; revert: () => void }> = [];
  /** The highest version a failed write covered: a waiter at or below it failed with that write. */
  #failedUpTo = 0;
  /** The version of the latest `update` (coalesced change). */
  #lastUpdate = 0;
  /** Whether the latest background write failed: its error is logged once, not at every retry. */
  #failing = false;
  /** Last-moment adjustment of the data before a snapshot is written (LogStore pruning). */
  beforeWrite: ((data: T) => void) | null = null;

  private constructor(file: string, low: Low<T>, deps: DocStoreDeps) {
    this.file = file;
    this.#low = low;
    this.#deps = deps;
  }

  /** Loads the file (recovering from `.bak` when needed). Top-level keys missing from the file get defaults. */
  static async open<T extends object>(
    file: string,
    defaults: T,
    deps: DocStoreDeps,
  ): Promise<JsonDocStore<T>> {
    const adapter = new DurableJsonFile<T>(file, deps.log);
    const fresh = structuredClone(defaults);
    const low = new Low<T>(adapter, fresh);
    await low.read();
    if (isPlainObject(fresh) && isPlainObject(low.data) && low.data !== fresh) {
      low.data = { ...fresh, ...low.data } as T;
    }
    const store = new JsonDocStore(file, low, deps);
    if (adapter.lastSource === 'bak') {
      // The main file was set aside: put the recovered copy back in place right away.
      store.#version += 1;
      await store.flush();
    }
    return store;
  }

  get data(): T {
    return this.#low.data;
  }

  /** Whether changes in memory still wait for a successful write. */
  get owed(): boolean {
    return this.#durable < this.#version;
  }

  get version(): number {
    return this.#version;
  }

  update(mutate: (data: T) => void): void {
    this.#assertOpen();
    mutate(this.#low.data);
    this.#version += 1;
    this.#lastUpdate = this.#version;
    this.#schedule(this.#deps.coalesceMs);
  }

  /**
   * All or nothing: a change that throws, or whose write fails, is undone in memory before the error reaches
   * the caller, so nothing a caller was told failed is ever seen or saved later.
   */
  async commit(mutate: (data: T) => void): Promise<void> {
    this.#assertOpen();
    const snapshot = takeSnapshot(this.#low.data);
    try {
      mutate(this.#low.data);
    } catch (err) {
      const clean = !this.owed && this.#inFlight === null;
      applyUndo(this.#low.data, undoFor(snapshot, this.#low.data));
      this.#version += 1;
      // Back to what the disk has: no write is owed for a change that never happened.
      if (clean) this.#durable = this.#version;
      throw err;
    }
    const undo = undoFor(snapshot, this.#low.data);
    await this.#commitApplied(() => applyUndo(this.#low.data, undo));
  }

  /**
   * A commit whose caller knows how to take its change back (a log append: remove the entry), so no copy
   * of the whole document is needed. `revert` runs if the write fails.
   */
  async commitReversible(mutate: (data: T) => void, revert: (data: T) => void): Promise<void> {
    this.#assertOpen();
    mutate(this.#low.data);
    await this.#commitApplied(() => revert(this.#low.data));
  }

  async #commitApplied(revert: () => void): Promise<void> {
    this.#version += 1;
    const version = this.#version;
    this.#pending.push({ version, revert });
    await this.#durableUpTo(version);
  }

  flush(): Promise<void> {
    return this.#durableUpTo(this.#version);
  }

  /** Writes what is pending and refuses every later change. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await this.flush();
  }

  #assertOpen(): void {
    if (this.#closed) throw new StoreError('store_closed', `store ${fileLabel(this.file)} is closed`);
  }

  async #durableUpTo(target: number): Promise<void> {
    while (this.#durable < target) {
      // Writes of one file never overlap: renames must land in order. Join the one on the disk, then loop.
      try {
        await (this.#inFlight ?? this.#startWrite());
      } catch (err) {
        // A write that started before this change was made did not cover it: try with a write of our own.
        if (this.#failedUpTo >= target) throw err;
      }
    }
  }

  #startWrite(): Promise<void> {
    const write = this.#writeOnce().finally(() => {
      if (this.#inFlight === write) this.#inFlight = null;
    });
    this.#inFlight = write;
    return write;
  }

  async #writeOnce(): Promise<void> {
    await this.#deps.gate.enter();
    try {
      const version = this.#version;
      if (version <= this.#durable) return;
      const started = performance.now();
      this.beforeWrite?.(this.#low.data);
      try {
        await this.#low.write();
      } catch (err) {
        this.#rollBack(version);
        this.#deps.onWriteResult?.(this.file, this, err);
        throw err;
      }
      this.#durable = Math.max(this.#durable, version);
      this.#pending = this.#pending.filter((p) => p.version > version);
      this.#deps.onWriteResult?.(this.file, this, null);
      this.#deps.onWrite?.({ file: fileLabel(this.file), ms: performance.now() - started });
    } finally {
      this.#deps.gate.exit();
    }
  }

  /**
   * Undoes, newest first, every commit the failed write covered; coalesced updates stay in memory and are
   * retried. The version moves on so caches derived from the data are rebuilt.
   */
  #rollBack(coveredVersion: number): void {
    this.#failedUpTo = Math.max(this.#failedUpTo, coveredVersion);
    const failed = this.#pending.filter((p) => p.version <= coveredVersion);
    if (failed.length === 0) return;
    this.#pending = this.#pending.filter((p) => p.version > coveredVersion);
    for (const p of failed.reverse()) p.revert();
    this.#version += 1;
    // Nothing left but what the disk already has: no write is owed.
    if (this.#pending.length === 0 && this.#lastUpdate <= this.#durable) this.#durable = this.#version;
  }

  #schedule(delayMs: number): void {
    if (this.#timer || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.flush().then(
        () => {
          this.#failing = false;
        },
        (err: unknown) => {
          if (!this.#failing)
            this.#deps.log.error(
              { file: fileLabel(this.file), err: err instanceof Error ? err.message : String(err) },
              'store write failed; retrying',
            );
          this.#failing = true;
          this.#schedule(Math.max(this.#deps.coalesceMs, RETRY_MS));
        },
      );
    }, delayMs);
  }
}
