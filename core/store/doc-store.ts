import { Low } from 'lowdb';
import type { Logger } from 'pino';
import { fileLabel } from './atomic-write.ts';
import { StoreError } from './errors.ts';
import { DurableJsonFile } from './json-file-adapter.ts';
import type { DocStore } from './types.ts';
import type { WriteGate } from './write-gate.ts';

export interface DocStoreDeps {
  log: Logger;
  gate: WriteGate;
  coalesceMs: number;
  onWrite?: ((info: { file: string; ms: number }) => void) | undefined;
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

  get version(): number {
    return this.#version;
  }

  update(mutate: (data: T) => void): void {
    this.#assertOpen();
    mutate(this.#low.data);
    this.#version += 1;
    this.#schedule(this.#deps.coalesceMs);
  }

  async commit(mutate: (data: T) => void): Promise<void> {
    this.#assertOpen();
    mutate(this.#low.data);
    this.#version += 1;
    await this.#durableUpTo(this.#version);
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
      await (this.#inFlight ?? this.#startWrite());
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
      await this.#low.write();
      this.#durable = Math.max(this.#durable, version);
      this.#deps.onWrite?.({ file: fileLabel(this.file), ms: performance.now() - started });
    } finally {
      this.#deps.gate.exit();
    }
  }

  #schedule(delayMs: number): void {
    if (this.#timer || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.flush().catch((err: unknown) => {
        this.#deps.log.error(
          { file: fileLabel(this.file), err: err instanceof Error ? err.message : String(err) },
          'store write failed; retrying',
        );
        this.#schedule(Math.max(this.#deps.coalesceMs, RETRY_MS));
      });
    }, delayMs);
  }
}
