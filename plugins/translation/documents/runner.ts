import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { characterCount, type UsageLedger } from '../accounting/usage-ledger.ts';
import { Cancellation } from '../cancellation.ts';
import type { TranslateService } from '../translate-service.ts';
import { writeBytesAtomic } from './files.ts';
import { localFormat } from './formats/index.ts';
import { documentRequest, givenTarget } from './params.ts';
import { type DocumentJob, type DocumentStore, MAX_INTERRUPTIONS } from './store.ts';

/** How many sentences and characters go to the engines in one call. */
const BATCH_TEXTS = 50;
const BATCH_CHARACTERS = 16 * 1024;
const BATCHES_IN_FLIGHT = 4;

export interface DocumentLimits {
  maxCharacters: number;
}

/** Work a DeepL upstream does for formats Hearth cannot translate itself (see upstream.ts). */
export interface UpstreamDocuments {
  /** Runs the job upstream to the end; resolves with the billed characters. */
  run(job: DocumentJob, signal: Cancellation): Promise<{ output: Uint8Array; billed: number }>;
}

/** Progress of the running job, for `seconds_remaining`. */
interface Progress {
  id: string;
  started: number;
  done: number;
  total: number;
}

/**
 * Runs document jobs one at a time (a Pi has few cores and little memory), oldest first. A restart finds
 * jobs still queued or translating and starts them again from their stored input; a job a restart keeps
 * interrupting fails after MAX_INTERRUPTIONS. Stopping the hub leaves the running job as it is stored.
 */
export class DocumentRunner {
  private running: Promise<void> | null = null;
  private progress: Progress | null = null;
  private readonly waiters = new Map<string, Array<() => void>>();
  private readonly stopping = new Cancellation();

  constructor(
    private readonly store: DocumentStore,
    private readonly service: TranslateService,
    private readonly ledger: UsageLedger,
    private readonly limits: DocumentLimits,
    private readonly log: Logger,
    private readonly upstream: UpstreamDocuments | null,
  ) {}

  /** Picks up the jobs a restart left: interrupted ones count an interruption and queue again. */
  async resume(): Promise<void> {
    for (const job of this.store.jobs) {
      if (job.status !== 'translating' && job.status !== 'queued') continue;
      const interrupted = job.status === 'translating';
      const gaveUp = interrupted && job.interruptions + 1 >= MAX_INTERRUPTIONS;
      await this.store.change(job.document_id, (j) => {
        if (interrupted) j.interruptions++;
        if (gaveUp) {
          j.status = 'error';
          j.error_message =
            'The translation was interrupted by restarts of the hub too often; upload it again.';
        } else j.status = 'queued';
      });
    }
    this.kick();
  }

  /** Starts the queue if it is idle. */
  kick(): void {
    if (this.running || this.stopping.aborted) return;
    this.running = this.drain().finally(() => {
      this.running = null;
    });
  }

  /** Resolves when the job leaves `queued`/`translating`, or after `ms`. */
  async settled(id: string, ms: number): Promise<void> {
    const job = this.store.get(id);
    if (!job || job.status === 'done' || job.status === 'error') return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      const list = this.waiters.get(id) ?? [];
      list.push(done);
      this.waiters.set(id, list);
      function done() {
        clearTimeout(timer);
        resolve();
      }
    });
  }

  /** Seconds the running job probably still needs (from its pace so far), or undefined. */
  secondsRemaining(id: string): number | undefined {
    const p = this.progress;
    if (!p || p.id !== id || p.done === 0) return undefined;
    const elapsed = (Date.now() - p.started) / 1000;
    return Math.max(1, Math.round((elapsed / p.done) * (p.total - p.done)));
  }

  async stop(): Promise<void> {
    this.stopping.abort('stopping');
    await this.running;
  }

  private async drain(): Promise<void> {
    for (;;) {
      if (this.stopping.aborted) return;
      const next = this.store.jobs
        .filter((j) => j.status === 'queued')
        .sort((a, b) => a.created.localeCompare(b.created))[0];
      if (!next) return;
      await this.runOne(next);
    }
  }

  private async runOne(job: DocumentJob): Promise<void> {
    const id = job.document_id;
    await this.store.change(id, (j) => {
      j.status = 'translating';
    });
    try {
      const { output, billed } =
        localFormat(job.format) && job.output_format === job.format
          ? await this.translateLocally(job)
          : await this.translateUpstream(job);
      // The characters are reserved until here: recorded once the result is durable, released otherwise.
      try {
        await writeBytesAtomic(this.store.outputFile(id), output);
      } catch (err) {
        this.ledger.release(job.account, billed);
        throw err;
      }
      this.ledger.record(job.account, job.tag, billed, new Date(), 'document');
      await this.store.change(id, (j) => {
        j.status = 'done';
        j.billed_characters = billed;
      });
    } catch (err) {
      // Stopping the hub is not the document's fault: it stays `translating` and resumes after the restart.
      if (this.stopping.aborted) return;
      const gone = (err as { code?: string }).code === 'ENOENT';
      const message = gone
        ? 'The uploaded file is missing from the data directory; upload the document again.'
        : err instanceof Error
          ? err.message
          : String(err);
      this.log.info({ document: id, err: message }, 'document translation failed');
      await this.store.change(id, (j) => {
        j.status = 'error';
        j.error_message = message;
      });
    } finally {
      this.progress = null;
      for (const wake of this.waiters.get(id) ?? []) wake();
      this.waiters.delete(id);
    }
  }

  private async translateUpstream(job: DocumentJob) {
    if (!this.upstream) throw new Error(`No DeepL upstream is configured for ${job.format} documents.`);
    const result = await this.upstream.run(job, this.stopping);
    this.ledger.reserve(job.account, result.billed, null); // already billed upstream: no limit applies
    return result;
  }

  private async translateLocally(job: DocumentJob): Promise<{ output: Uint8Array; billed: number }> {
    const format = localFormat(job.format);
    if (!format) throw new Error(`Documents of type ${job.format} are not supported.`);
    const input = await readFile(this.store.inputFile(job.document_id));
    const req = documentRequest(job.params);
    const prepared = format.prepare(input, req.target);
    const billed = prepared.cores.reduce((n, c) => n + characterCount(c), 0);
    if (billed > this.limits.maxCharacters) {
      throw new Error(`The document has more than ${this.limits.maxCharacters} characters to translate.`);
    }
    const account = { id: job.account, limit: job.limit };
    if (!this.ledger.reserve(job.account, billed, job.limit)) {
      throw new Error('Quota exceeded: the character limit of this key has been reached.');
    }
    try {
      this.progress = { id: job.document_id, started: Date.now(), done: 0, total: billed };
      const progress = this.progress;
      const all = [...batches(prepared.cores)];
      const answers: string[][] = [];
      const detected = new Set<string>();
      // A few batches in flight at once: a remote engine's round trip, not Hearth, is what a document waits for.
      let next = 0;
      const worker = async () => {
        while (next < all.length) {
          const at = next++;
          const batch = all[at] as string[];
          if (this.stopping.aborted) throw new Error('stopping');
          const out = await this.service.translateUnbilled({ ...req, texts: batch }, account, this.stopping);
          answers[at] = out.map((t) => t.text);
          for (const t of out) if (t.detectedSource) detected.add(t.detectedSource.toUpperCase());
          progress.done += batch.reduce((n, c) => n + characterCount(c), 0);
        }
      };
      await Promise.all(Array.from({ length: Math.min(BATCHES_IN_FLIGHT, all.length) }, worker));
      // DeepL fails a document whose detected language is the target it was given (EN to EN-GB is a
      // conversion and passes); Hearth's engines would hand back the text unchanged and bill it.
      const target = givenTarget(job.params);
      if (req.source === null && detected.size === 1 && detected.has(target))
        throw new Error('Source and target language are equal.');
      const translations = answers.flat();
      return { output: prepared.finish(translations), billed };
    } catch (err) {
      this.ledger.release(job.account, billed);
      throw err;
    }
  }
}

/** Sentences in engine-sized batches. */
function* batches(cores: string[]): Generator<string[]> {
  let batch: string[] = [];
  let size = 0;
  for (const core of cores) {
    if (batch.length > 0 && (batch.length >= BATCH_TEXTS || size + core.length > BATCH_CHARACTERS)) {
      yield batch;
      batch = [];
      size = 0;
    }
    batch.push(core);
    size += core.length;
  }
  if (batch.length > 0) yield batch;
}
