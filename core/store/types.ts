/** One lowdb JSON file owned by exactly one DocStore in the process. */
export interface DocStore<T extends object> {
  /** The live data. Mutate it only inside `update`/`commit` so the change is scheduled for writing. */
  readonly data: T;
  /** Bumped by every `update` and `commit`: a cache derived from `data` compares it to know it is stale. */
  readonly version: number;
  /**
   * Applies a change in memory and schedules a coalesced write (at most one write per `coalesceMs`).
   * Use for high-rate state (light levels, counters).
   */
  update(mutate: (data: T) => void): void;
  /** Applies a change and resolves once it is durable on disk (temp file, fsync, rename). */
  commit(mutate: (data: T) => void): Promise<void>;
  /** Resolves once everything changed before the call is durable. */
  flush(): Promise<void>;
}

/** A bounded collection for hot records (audit, usage events, issuances); old entries are pruned. */
export interface LogStore<T> {
  readonly items: readonly T[];
  /** Appends with a coalesced write; `durable: true` awaits the fsync. */
  append(item: T, opts?: { durable?: boolean }): Promise<void>;
  /** Drops entries beyond `max` or older than `maxAgeMs` (judged by `timeOf`). Returns how many were dropped. */
  prune(): number;
  flush(): Promise<void>;
}

export interface DocStoreOptions {
  /** Coalescing window for `update` in ms (default from config `store.coalesceMs`). */
  coalesceMs?: number;
}

export interface LogStoreOptions<T> extends DocStoreOptions {
  max: number;
  maxAgeMs?: number;
  timeOf?: (item: T) => number;
}

/** A plugin's view of the data directory: files are named `<plugin>.<name>.json`. */
export interface PluginStore {
  open<T extends object>(name: string, defaults: T, opts?: DocStoreOptions): Promise<DocStore<T>>;
  openLog<T>(name: string, opts: LogStoreOptions<T>): Promise<LogStore<T>>;
  /** Absolute directory a plugin may use for other files (keys, caches), created on demand. */
  dir(): Promise<string>;
}

/** The process-wide owner of the data directory (one per hub). */
/** Why data files cannot be written right now (a full or read-only disk). */
export interface WriteProblem {
  /** The error codes seen (`ENOSPC`, `EROFS`, …), comma-separated. */
  code: string;
  /** One sentence for an operator. */
  reason: string;
  /** The data files whose latest write failed. */
  files: string[];
}

export interface StoreRoot {
  readonly dataDir: string;
  /** Set while the latest write of some file failed; cleared by that file's next successful write. */
  readonly writeProblem: WriteProblem | null;
  /** The store view handed to a plugin (files `<plugin>.<name>.json`). `core` is used by the core itself. */
  forOwner(owner: string): PluginStore;
  /** Resolves once every store's pending changes are durable. */
  flushAll(): Promise<void>;
  /**
   * Runs `fn` with every store flushed and writes held back, so the data files form a consistent set
   * (backup). Writes requested meanwhile are applied in memory and written afterwards.
   */
  withWritesPaused<R>(fn: () => Promise<R>): Promise<R>;
  /**
   * Flushes and releases every file; further writes (and opens) on this root are refused with a
   * `StoreError` whose code is `store_closed`. A new root on the same data directory may then open the files.
   */
  close(): Promise<void>;
}

export interface StoreRootOptions {
  dataDir: string;
  coalesceMs: number;
  log: import('pino').Logger;
  /** Called after every durable write (file name, duration): feeds metrics, tests and the benchmark. */
  onWrite?: (info: { file: string; ms: number }) => void;
  /** Called when the disk health changes: a problem appears, changes, or goes away (`null`). */
  onWriteProblem?: (problem: WriteProblem | null) => void;
}
