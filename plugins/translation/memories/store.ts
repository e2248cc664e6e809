import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type DocStore, fsyncDir, type PluginStore, VERSION } from '../../../core/sdk.ts';
import { notFoundError } from '../errors.ts';
import { keyedRecord, ownValue, setOwn } from '../own.ts';
import { MatchIndex } from './fuzzy.ts';
import { LoadedCache } from './loaded-cache.ts';
import { TMX_FOOTER, TmxReader, tmxHeader, tmxUnit } from './tmx.ts';

export interface MemoryInfo {
  translation_memory_id: string;
  name: string;
  source_language: string;
  target_languages: string[];
  segment_count: number;
  creation_time: string;
  updated_time: string;
}

export type JobStatus = 'awaiting_input' | 'processing' | 'completed' | 'downloaded' | 'failed' | 'expired';

export interface MemoryJob {
  job_id: string;
  account: string;
  operation: 'import' | 'export';
  status: JobStatus;
  creation_time: string;
  updated_time: string;
  expires_at: string;
  /** SHA-256 of the secret in the upload or download URL (the URL is the credential, as a pre-signed one is). */
  token_hash: string;
  file_name?: string;
  content_type?: string;
  content_length?: number;
  display_name?: string;
  translation_memory_id?: string;
  skipped_segment_count?: number;
  error?: string;
  /** Path and query of an export's download URL (its secret is the credential; the data dir is private). */
  download_path?: string;
}

/** One stored segment: the source text and its translations by language code. */
export interface Segment {
  source: string;
  targets: Record<string, string>;
}

export interface LoadedMemory {
  info: MemoryInfo;
  segments: Segment[];
  index: MatchIndex;
}

/** How long an upload or download URL stays valid. */
export const URL_LIFETIME_MS = 60 * 60 * 1000;
/** Memories kept loaded for lookups (each holds its segments and their index). */
const LOADED = 8;
/** Characters of segment text kept loaded (≈ 32 MiB; with their indexes roughly three times that). */
const LOADED_CHARS = 16 * 1024 * 1024;

/** The characters a loaded memory holds: its sources and translations. */
function loadedChars(memory: LoadedMemory): number {
  let n = 0;
  for (const s of memory.segments) {
    n += s.source.length;
    for (const t of Object.values(s.targets)) n += t.length;
  }
  return n;
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** DeepL's memory languages: a code with one of DeepL's variants keeps it, any other region is dropped. */
export function memoryLanguage(code: string): string {
  const lower = code.trim().toLowerCase().replace('_', '-');
  const variants = ['en-gb', 'en-us', 'es-419', 'pt-br', 'pt-pt', 'zh-hans', 'zh-hant'];
  return variants.includes(lower) ? lower : (lower.split('-')[0] ?? lower);
}

/**
 * Translation memories: per account an index file (`translation.memories-<hash>.json`), per memory its
 * segments as NDJSON under the plugin's directory (written to a temporary file, fsynced, renamed), and one
 * job file. Memories are only created by TMX import and never edited (DeepL: "import a new one instead").
 */
export class MemoryStore {
  private readonly docs = new Map<string, Promise<DocStore<{ memories: Record<string, MemoryInfo> }>>>();
  private readonly loaded = new LoadedCache<LoadedMemory>(LOADED, LOADED_CHARS, loadedChars);

  private constructor(
    private readonly store: PluginStore,
    private readonly jobs: DocStore<{ jobs: Record<string, MemoryJob> }>,
    private readonly dir: string,
  ) {}

  /** Opens the job file; jobs a restart interrupted fail cleanly, expired URLs expire. */
  static async open(store: PluginStore): Promise<MemoryStore> {
    const jobs = await store.open<{ jobs: Record<string, MemoryJob> }>('memory-jobs', {
      jobs: keyedRecord(),
    });
    const dir = join(await store.dir(), 'memories');
    await mkdir(dir, { recursive: true });
    const self = new MemoryStore(store, jobs, dir);
    const now = new Date().toISOString();
    await jobs.commit((d) => {
      for (const job of Object.values(d.jobs)) {
        if (job.status === 'processing') {
          job.status = 'failed';
          job.error = 'The job was interrupted by a restart of the hub; start it again.';
          job.updated_time = now;
        } else if ((job.status === 'awaiting_input' || job.status === 'completed') && job.expires_at < now) {
          job.status = 'expired';
          job.updated_time = now;
        }
      }
    });
    return self;
  }

  private doc(account: string) {
    let doc = this.docs.get(account);
    if (!doc) {
      const name = `memories-${createHash('sha256').update(account).digest('hex').slice(0, 24)}`;
      doc = this.store.open(name, { memories: keyedRecord<MemoryInfo>() });
      this.docs.set(account, doc);
    }
    return doc;
  }

  async list(account: string): Promise<MemoryInfo[]> {
    const doc = await this.doc(account);
    return Object.values(doc.data.memories).sort((a, b) => a.creation_time.localeCompare(b.creation_time));
  }

  async get(account: string, id: string): Promise<MemoryInfo> {
    const found = ownValue((await this.doc(account)).data.memories, id);
    if (!found) throw notFoundError(`Translation memory '${id}' not found.`);
    return found;
  }

  async delete(account: string, id: string): Promise<void> {
    await this.get(account, id);
    const doc = await this.doc(account);
    await doc.commit((d) => {
      delete d.memories[id];
    });
    this.loaded.delete(id);
    await rm(this.segmentsFile(id), { force: true });
  }

  private segmentsFile(id: string): string {
    return join(this.dir, `${id}.ndjson`);
  }

  /** The memory's segments and match index (loaded once, a few memories kept). */
  async load(account: string, id: string): Promise<LoadedMemory> {
    const info = await this.get(account, id);
    let loading = this.loaded.get(id);
    if (!loading) {
      loading = (async () => {
        const segments: Segment[] = [];
        const lines = createInterface({
          input: createReadStream(this.segmentsFile(id), 'utf8'),
          crlfDelay: Infinity,
        });
        for await (const line of lines) {
          if (line) segments.push(JSON.parse(line) as Segment);
        }
        return { info, segments, index: new MatchIndex(segments.map((s) => s.source)) };
      })();
      this.loaded.set(id, loading);
    }
    return loading;
  }

  // --- jobs ---

  job(account: string, id: string): MemoryJob {
    const job = ownValue(this.jobs.data.jobs, id);
    if (!job || job.account !== account) throw notFoundError(`Job '${id}' not found.`);
    return job;
  }

  /** The job a URL names, if its secret matches and it is still valid. */
  jobByToken(id: string, token: string): MemoryJob | null {
    const job = ownValue(this.jobs.data.jobs, id);
    if (!job) return null;
    const a = Buffer.from(job.token_hash, 'hex');
    const b = Buffer.from(hashToken(token), 'hex');
    return a.length === b.length && timingSafeEqual(a, b) ? job : null;
  }

  private async saveJob(job: MemoryJob, change: Partial<MemoryJob>): Promise<MemoryJob> {
    const next = { ...job, ...change, updated_time: new Date().toISOString() };
    await this.jobs.commit((d) => setOwn(d.jobs, job.job_id, next));
    return next;
  }

  private async newJob(
    fields: Omit<MemoryJob, 'job_id' | 'creation_time' | 'updated_time' | 'expires_at' | 'token_hash'>,
  ) {
    const token = randomBytes(24).toString('base64url');
    const now = Date.now();
    const job: MemoryJob = {
      job_id: randomUUID(),
      creation_time: new Date(now).toISOString(),
      updated_time: new Date(now).toISOString(),
      expires_at: new Date(now + URL_LIFETIME_MS).toISOString(),
      token_hash: hashToken(token),
      ...fields,
    };
    await this.jobs.commit((d) => setOwn(d.jobs, job.job_id, job));
    return { job, token };
  }

  createImport(
    account: string,
    file: { file_name: string; content_length: number; content_type?: string; display_name?: string },
  ) {
    return this.newJob({ account, operation: 'import', status: 'awaiting_input', ...file });
  }

  /**
   * The upload: the TMX is parsed as it arrives and its segments written to a temporary file, so memory
   * stays bounded by one unit; the memory exists once the file is durable. A malformed file fails the job.
   */
  async receiveUpload(job: MemoryJob, body: IncomingMessage): Promise<MemoryJob> {
    let current = await this.saveJob(job, { status: 'processing' });
    const id = randomUUID();
    const temp = join(this.dir, `${id}.ndjson.tmp`);
    const out = await open(temp, 'w');
    let count = 0;
    const targets = new Set<string>();
    let pending = '';
    const reader = new TmxReader((unit) => {
      const mapped: Record<string, string> = keyedRecord();
      for (const [lang, text] of unit.targets) {
        const code = memoryLanguage(lang);
        targets.add(code);
        setOwn(mapped, code, text);
      }
      pending += `${JSON.stringify({ source: unit.source, targets: mapped })}\n`;
      count++;
    });
    try {
      let decoder: TextDecoder | null = null;
      for await (const chunk of body as AsyncIterable<Buffer>) {
        if (!decoder) {
          // TMX may be UTF-16 (with a byte order mark) as well as UTF-8.
          const utf16 =
            chunk[0] === 0xff && chunk[1] === 0xfe
              ? 'utf-16le'
              : chunk[0] === 0xfe && chunk[1] === 0xff
                ? 'utf-16be'
                : 'utf-8';
          decoder = new TextDecoder(utf16);
        }
        reader.write(decoder.decode(chunk, { stream: true }));
        if (pending) {
          await out.write(pending);
          pending = '';
        }
      }
      reader.write(decoder?.decode() ?? '');
      reader.end();
      if (pending) await out.write(pending);
      if (reader.error) throw new Error(`The file could not be read as TMX: ${reader.error}`);
      if (count === 0) throw new Error('The file holds no translation units with a source and a target.');
      await out.sync();
      await out.close();
      await rename(temp, this.segmentsFile(id));
      await fsyncDir(this.dir);
      const now = new Date().toISOString();
      const info: MemoryInfo = {
        translation_memory_id: id,
        name: job.display_name || (job.file_name ?? 'memory').replace(/\.tmx$/i, ''),
        // Sources are plain languages (DeepL: de, en, es, …); only targets keep a variant.
        source_language: (reader.sourceLanguage ?? 'en').split(/[-_]/)[0] as string,
        target_languages: [...targets].sort(),
        segment_count: count,
        creation_time: now,
        updated_time: now,
      };
      const doc = await this.doc(job.account);
      await doc.commit((d) => setOwn(d.memories, id, info));
      current = await this.saveJob(current, {
        status: 'completed',
        translation_memory_id: id,
        skipped_segment_count: reader.skipped,
      });
    } catch (err) {
      await out.close().catch(() => {});
      await rm(temp, { force: true });
      current = await this.saveJob(current, { status: 'failed', error: (err as Error).message });
    }
    return current;
  }

  /** An export job; a completed, still valid export of the unchanged memory is reused (`reused`). */
  async createExport(
    account: string,
    id: string,
  ): Promise<{ job: MemoryJob; token: string | null; reused: boolean; done: Promise<void> }> {
    const info = await this.get(account, id);
    const now = new Date().toISOString();
    const existing = Object.values(this.jobs.data.jobs).find(
      (j) =>
        j.account === account &&
        j.operation === 'export' &&
        j.translation_memory_id === id &&
        j.status === 'completed' &&
        j.expires_at > now,
    );
    if (existing) return { job: existing, token: null, reused: true, done: Promise.resolve() };
    const created = await this.newJob({
      account,
      operation: 'export',
      status: 'processing',
      translation_memory_id: id,
    });
    const token = created.token;
    const job = await this.saveJob(created.job, {
      download_path: `/v3/translation_memories/jobs/${created.job.job_id}/download?token=${token}`,
    });
    const done = this.writeExport(job, info).catch(() => {});
    return { job, token, reused: false, done };
  }

  exportFile(jobId: string): string {
    return join(this.dir, `export-${jobId}.tmx`);
  }

  private async writeExport(job: MemoryJob, info: MemoryInfo): Promise<void> {
    const temp = `${this.exportFile(job.job_id)}.tmp`;
    try {
      const out = await open(temp, 'w');
      await out.write(tmxHeader(info.source_language, VERSION));
      const lines = createInterface({
        input: createReadStream(this.segmentsFile(info.translation_memory_id), 'utf8'),
        crlfDelay: Infinity,
      });
      let batch = '';
      for await (const line of lines) {
        if (!line) continue;
        const segment = JSON.parse(line) as Segment;
        batch += tmxUnit(info.source_language, segment.source, Object.entries(segment.targets));
        if (batch.length > 64 * 1024) {
          await out.write(batch);
          batch = '';
        }
      }
      await out.write(batch + TMX_FOOTER);
      await out.sync();
      await out.close();
      await rename(temp, this.exportFile(job.job_id));
      await this.saveJob(job, {
        status: 'completed',
        expires_at: new Date(Date.now() + URL_LIFETIME_MS).toISOString(),
      });
    } catch (err) {
      await rm(temp, { force: true });
      await this.saveJob(job, { status: 'failed', error: `The export failed: ${(err as Error).message}` });
    }
  }

  async markDownloaded(job: MemoryJob): Promise<void> {
    if (job.status === 'completed') await this.saveJob(job, { status: 'downloaded' });
  }

  async flush(): Promise<void> {
    await this.jobs.flush();
    await Promise.all([...this.docs.values()].map(async (d) => (await d).flush()));
  }

  /** For tests: the raw text of a memory's segment file. */
  segmentsText(id: string): Promise<string> {
    return readFile(this.segmentsFile(id), 'utf8');
  }
}
