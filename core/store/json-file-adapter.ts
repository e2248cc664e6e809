import type { Adapter } from 'lowdb';
import type { Logger } from 'pino';
import { writeFileAtomic } from './atomic-write.ts';
import { type LoadResult, loadWithRecovery, removeStaleTemps } from './load-file.ts';

/**
 * lowdb adapter for one store file. lowdb's own JSONFile renames without fsync, so a power cut can leave an
 * empty file; this one writes through `writeFileAtomic` and recovers from `.bak` on load.
 */
export class DurableJsonFile<T extends object> implements Adapter<T> {
  readonly file: string;
  readonly #log: Logger;
  /** Where the last `read` found the data; `bak` means the main file must be rewritten. */
  lastSource: LoadResult<T>['source'] = 'defaults';

  constructor(file: string, log: Logger) {
    this.file = file;
    this.#log = log;
  }

  async read(): Promise<T | null> {
    await removeStaleTemps(this.file, this.#log);
    const result = await loadWithRecovery<T>(this.file, this.#log);
    this.lastSource = result.source;
    return result.data;
  }

  /**
   * Serializes synchronously, before the first await: the caller relies on the snapshot being taken at the
   * moment of the call (every change made before it is in this write).
   */
  write(data: T): Promise<void> {
    const text = `${JSON.stringify(data, null, 2)}\n`;
    return writeFileAtomic(this.file, text);
  }
}
