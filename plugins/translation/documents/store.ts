import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DocStore, PluginStore } from '../../../core/sdk.ts';
import { keyedRecord, ownChild, ownValue, setOwn } from '../own.ts';
import { removeFile } from './files.ts';

/** DeepL's document states. */
export type DocumentStatus = 'queued' | 'translating' | 'done' | 'error';

export interface DocumentJob {
  document_id: string;
  account: string;
  /** SHA-256 of the document key (the key is the download credential; it is never stored). */
  key_hash: string;
  status: DocumentStatus;
  created: string;
  updated: string;
  file_name: string;
  /** Canonical format of the upload and of the result. */
  format: string;
  output_format: string;
  /** The request's translation parameters as sent (form fields), re-read when the job runs. */
  params: Record<string, string[]>;
  /** The key's monthly character limit when it uploaded (null = none). */
  limit: number | null;
  tag: string;
  billed_characters?: number;
  error_message?: string;
  /** The result was fetched: a second download is refused. */
  downloaded?: boolean;
  /** How many times a restart interrupted this job. */
  interruptions: number;
  /** Set when a DeepL upstream translates the file: its handle there (the key sealed). */
  upstream?: { engine: string; id: string; sealed_key: string };
}

interface JobsDoc {
  jobs: Record<string, DocumentJob>;
  /** Documents uploaded by month (`YYYY-MM`) and account: the document limits. */
  counts: Record<string, Record<string, number>>;
}

/** A restart may interrupt a job this many times; then it fails instead of starting again. */
export const MAX_INTERRUPTIONS = 3;

const hash = (key: string) => createHash('sha256').update(key).digest();
export const monthOf = (date: Date) => date.toISOString().slice(0, 7);

/**
 * Document jobs: one record per document in `translation.documents.json` (each change committed before
 * it is acknowledged), the uploaded and translated files under `<plugin dir>/documents/`.
 */
export class DocumentStore {
  private constructor(
    private readonly doc: DocStore<JobsDoc>,
    readonly dir: string,
  ) {}

  static async open(store: PluginStore): Promise<DocumentStore> {
    const doc = await store.open<JobsDoc>('documents', { jobs: keyedRecord(), counts: keyedRecord() });
    const dir = join(await store.dir(), 'documents');
    await mkdir(join(dir, 'incoming'), { recursive: true });
    return new DocumentStore(doc, dir);
  }

  inputFile = (id: string) => join(this.dir, `${id}.in`);
  outputFile = (id: string) => join(this.dir, `${id}.out`);
  /** Where multipart uploads land before they are checked (emptied at start). */
  get incoming(): string {
    return join(this.dir, 'incoming');
  }

  get jobs(): DocumentJob[] {
    return Object.values(this.doc.data.jobs);
  }

  get(id: string): DocumentJob | undefined {
    return ownValue(this.doc.data.jobs, id);
  }

  /** A new document id (32 hex digits, as DeepL's) and key (64). */
  static newIds() {
    return {
      id: randomBytes(16).toString('hex').toUpperCase(),
      key: randomBytes(32).toString('hex').toUpperCase(),
    };
  }

  static keyHash = (key: string) => hash(key).toString('hex');

  static keyMatches(job: DocumentJob, key: string): boolean {
    const expected = Buffer.from(job.key_hash, 'hex');
    const given = hash(key);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  /** Documents the account (or, with null, everyone) uploaded in the month of `now`. */
  count(account: string | null, now = new Date()): number {
    const month = ownValue(this.doc.data.counts, monthOf(now));
    if (!month) return 0;
    if (account !== null) return ownValue(month, account) ?? 0;
    return Object.values(month).reduce((a, b) => a + b, 0);
  }

  /** Stores a new job (its input file is already durable) and counts it; durable when it resolves. */
  add(job: DocumentJob, now = new Date()): Promise<void> {
    return this.doc.commit((d) => {
      setOwn(d.jobs, job.document_id, job);
      const month = ownChild(d.counts, monthOf(now));
      setOwn(month, job.account, (ownValue(month, job.account) ?? 0) + 1);
      // Only this month and the last matter for limits.
      for (const m of Object.keys(d.counts))
        if (m < monthOf(new Date(now.getTime() - 40 * 86_400_000))) delete d.counts[m];
    });
  }

  /** Changes a job durably. */
  change(id: string, mutate: (job: DocumentJob) => void): Promise<void> {
    return this.doc.commit((d) => {
      const job = ownValue(d.jobs, id);
      if (!job) return;
      mutate(job);
      job.updated = new Date().toISOString();
    });
  }

  /** Forgets a job and its files. */
  async remove(id: string): Promise<void> {
    await this.doc.commit((d) => {
      delete d.jobs[id];
    });
    await Promise.all([removeFile(this.inputFile(id)), removeFile(this.outputFile(id))]);
  }

  /** Jobs (and their files) older than `retentionMs` that are not running are forgotten. */
  async prune(retentionMs: number, now = Date.now()): Promise<void> {
    const cutoff = new Date(now - retentionMs).toISOString();
    for (const job of this.jobs) {
      if ((job.status !== 'done' && job.status !== 'error') || job.updated >= cutoff) continue;
      await this.remove(job.document_id);
    }
  }

  /** Files no job refers to (left by a crash mid-upload or mid-write) are deleted. */
  async sweep(): Promise<void> {
    await rm(this.incoming, { recursive: true, force: true });
    await mkdir(this.incoming, { recursive: true });
    for (const name of await readdir(this.dir)) {
      const id = /^([0-9A-F]{32})\.(in|out)$/.exec(name)?.[1];
      if (name === 'incoming') continue;
      if (!id || !this.get(id)) await removeFile(join(this.dir, name));
    }
  }

  flush(): Promise<void> {
    return this.doc.flush();
  }
}
