import { mkdir } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { errCode } from './atomic-write.ts';
import { JsonDocStore } from './doc-store.ts';
import { assertSafeName, StoreError } from './errors.ts';
import { BoundedLogStore, type LogFile } from './log-store.ts';
import { claimFile, releaseFile } from './ownership.ts';
import type {
  DocStore,
  DocStoreOptions,
  LogStore,
  LogStoreOptions,
  PluginStore,
  StoreRoot,
  StoreRootOptions,
  WriteProblem,
} from './types.ts';
import { WriteGate } from './write-gate.ts';

/** Settles every promise and throws the first failure, so one bad file never hides the others' results. */
async function allOrFirstError<T>(promises: Iterable<Promise<T>>): Promise<T[]> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<T>).value);
}

/** A sentence an operator can act on; the codes stay in the notice for the curious. */
function describeWriteError(codes: string[]): string {
  if (codes.includes('ENOSPC') || codes.includes('EDQUOT'))
    return 'the data disk is full: changes cannot be saved until space is freed';
  if (codes.includes('EROFS')) return 'the data disk is read-only: changes cannot be saved';
  if (codes.includes('EACCES') || codes.includes('EPERM'))
    return 'the data directory is not writable: changes cannot be saved';
  return `writing the data directory fails (${codes.join(', ')}): changes cannot be saved`;
}

class FileStoreRoot implements StoreRoot {
  readonly dataDir: string;
  readonly #opts: StoreRootOptions;
  readonly #gate = new WriteGate();
  /** Every file this root opened (or is opening), by absolute path. */
  readonly #docs = new Map<string, Promise<Pick<JsonDocStore<object>, 'flush' | 'close'>>>();
  #closing: Promise<void> | null = null;
  /** Files whose latest write failed, with that error's code: the disk health the hub reports. */
  readonly #failing = new Map<string, { code: string; doc: { readonly owed: boolean } }>();
  /** Backups run one after another. */
  #pauses: Promise<unknown> = Promise.resolve();

  constructor(dataDir: string, opts: StoreRootOptions) {
    this.dataDir = dataDir;
    this.#opts = opts;
  }

  forOwner(owner: string): PluginStore {
    assertSafeName('owner', owner);
    return {
      open: async <T extends object>(
        name: string,
        defaults: T,
        opts: DocStoreOptions = {},
      ): Promise<DocStore<T>> =>
        claimFile(this.#fileOf(owner, name), this, 'doc', () => this.#loadDoc(owner, name, defaults, opts)),
      openLog: async <T>(name: string, opts: LogStoreOptions<T>): Promise<LogStore<T>> =>
        claimFile(this.#fileOf(owner, name), this, 'log', async (): Promise<LogStore<T>> => {
          const doc = await this.#loadDoc<LogFile<T>>(owner, name, { items: [] }, opts);
          return new BoundedLogStore(doc, opts);
        }),
      dir: async () => {
        const dir = join(this.dataDir, owner);
        await mkdir(dir, { recursive: true, mode: 0o700 });
        return dir;
      },
    };
  }

  get writeProblem(): WriteProblem | null {
    const codes = [...new Set([...this.#failing.values()].map((f) => f.code))];
    if (codes.length === 0) return null;
    const files = [...this.#failing.keys()].map((f) => basename(f));
    return { code: codes.join(','), reason: describeWriteError(codes), files };
  }

  /**
   * Tracks which files fail to write; the hub hears of a change of the overall state only. A good write
   * anywhere also clears the files that owe nothing any more (their failed change was undone): the disk
   * takes writes again, and nothing of theirs waits to be retried.
   */
  #onWriteResult = (file: string, doc: { readonly owed: boolean }, err: unknown): void => {
    const before = this.writeProblem?.reason ?? null;
    if (err === null) {
      this.#failing.delete(file);
      for (const [f, entry] of this.#failing) if (!entry.doc.owed) this.#failing.delete(f);
    } else this.#failing.set(file, { code: errCode(err) ?? 'EUNKNOWN', doc });
    const after = this.writeProblem;
    if ((after?.reason ?? null) !== before) this.#opts.onWriteProblem?.(after);
  };

  flushAll(): Promise<void> {
    return this.#eachDoc((doc) => doc.flush());
  }

  withWritesPaused<R>(fn: () => Promise<R>): Promise<R> {
    const run = this.#pauses.then(async () => {
      await this.flushAll();
      await this.#gate.hold();
      try {
        return await fn();
      } finally {
        this.#gate.release();
      }
    });
    this.#pauses = run.catch(() => {});
    return run;
  }

  close(): Promise<void> {
    this.#closing ??= this.#eachDoc((doc) => doc.close()).finally(() => {
      for (const file of this.#docs.keys()) releaseFile(file, this);
    });
    return this.#closing;
  }

  #fileOf(owner: string, name: string): string {
    assertSafeName('name', name);
    if (this.#closing) throw new StoreError('store_closed', 'the store root is closed');
    return join(this.dataDir, `${owner}.${name}.json`);
  }

  #loadDoc<T extends object>(
    owner: string,
    name: string,
    defaults: T,
    opts: DocStoreOptions,
  ): Promise<JsonDocStore<T>> {
    const coalesceMs = opts.coalesceMs ?? this.#opts.coalesceMs;
    if (!Number.isFinite(coalesceMs) || coalesceMs < 0)
      throw new RangeError('coalesceMs must be a number >= 0');
    const file = this.#fileOf(owner, name);
    const doc = JsonDocStore.open(file, defaults, {
      log: this.#opts.log,
      gate: this.#gate,
      coalesceMs,
      onWrite: this.#opts.onWrite,
      onWriteResult: this.#onWriteResult,
    });
    this.#docs.set(file, doc);
    return doc;
  }

  async #eachDoc(fn: (doc: Pick<JsonDocStore<object>, 'flush' | 'close'>) => Promise<void>): Promise<void> {
    // Files that failed to open have nothing to flush; their error went to whoever opened them.
    const opened = await Promise.allSettled(this.#docs.values());
    const docs = opened.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    await allOrFirstError(docs.map(fn));
  }
}

/**
 * Opens the data directory (created with mode 0700 when missing). Files are `<owner>.<name>.json`; each is
 * owned by exactly one store object in the process.
 */
export async function createStoreRoot(opts: StoreRootOptions): Promise<StoreRoot> {
  const dataDir = resolve(opts.dataDir);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  return new FileStoreRoot(dataDir, opts);
}
