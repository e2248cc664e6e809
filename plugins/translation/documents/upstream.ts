import { readFile } from 'node:fs/promises';
import type { Cancellation } from '../cancellation.ts';
import { deeplHost } from '../engines/deepl.ts';
import { USER_AGENT } from '../engines/http-client.ts';
import type { EngineConfig } from '../engines/types.ts';
import type { UpstreamDocuments } from './runner.ts';
import type { DocumentJob, DocumentStore } from './store.ts';

/** The form fields passed on to DeepL (Hearth's own glossary and memory ids mean nothing there). */
const FORWARDED = ['source_lang', 'target_lang', 'formality', 'output_format'];
/** Upstream calls that fail for a moment (network, 429, 5xx) are tried this often before the job fails. */
const ATTEMPTS = 4;
const FIRST_POLL_MS = 250;
const MAX_POLL_MS = 5000;

export interface Sealer {
  seal(value: string, context: string): string;
  open(sealed: string, context: string): string;
}

class Transient extends Error {}

/**
 * Formats only DeepL can translate (PDF, images, IDML…) and format conversions go to the first DeepL
 * upstream: the stored upload is sent there, its document handle kept in the job (the key sealed with the
 * plugin's secrets), its status polled, and the result stored like a local one. A restart resumes
 * polling the same upstream document.
 */
export class DeeplDocuments implements UpstreamDocuments {
  private readonly base: string;
  private stop: AbortSignal = new AbortController().signal;

  constructor(
    private readonly engine: EngineConfig,
    private readonly store: DocumentStore,
    private readonly sealer: Sealer,
    private readonly sleep = (ms: number, signal: Cancellation) =>
      new Promise<void>((resolve, reject) => {
        if (signal.aborted) return reject(new Error('stopping'));
        const timer = setTimeout(resolve, ms);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(new Error('stopping'));
        });
      }),
  ) {
    this.base = (engine.url || deeplHost(engine.apiKey)).replace(/\/+$/, '');
  }

  async run(job: DocumentJob, signal: Cancellation): Promise<{ output: Uint8Array; billed: number }> {
    // Stopping the hub ends an upstream call at once (the job stays stored and resumes after the restart).
    const stop = new AbortController();
    if (signal.aborted) stop.abort();
    else signal.addEventListener('abort', () => stop.abort());
    this.stop = stop.signal;
    let handle = job.upstream;
    if (!handle || handle.engine !== this.engine.id) {
      const made = await this.retrying(signal, () => this.upload(job));
      handle = {
        engine: this.engine.id,
        id: made.id,
        sealed_key: this.sealer.seal(made.key, job.document_id),
      };
      const stored = handle;
      await this.store.change(job.document_id, (j) => {
        j.upstream = stored;
      });
    }
    const key = this.sealer.open(handle.sealed_key, job.document_id);
    const id = handle.id;
    let wait = FIRST_POLL_MS;
    for (;;) {
      const status = await this.retrying(signal, () =>
        this.call(`/v2/document/${encodeURIComponent(id)}`, key),
      );
      const body = JSON.parse(status.toString('utf8')) as {
        status?: string;
        billed_characters?: number;
        error_message?: string;
        message?: string;
      };
      if (body.status === 'done') {
        const output = await this.retrying(signal, () =>
          this.call(`/v2/document/${encodeURIComponent(id)}/result`, key),
        );
        return { output, billed: body.billed_characters ?? 0 };
      }
      if (body.status === 'error') {
        throw new Error(
          `DeepL could not translate the document: ${body.error_message ?? body.message ?? ''}`.trim(),
        );
      }
      await this.sleep(wait, signal);
      wait = Math.min(wait * 2, MAX_POLL_MS);
    }
  }

  private async upload(job: DocumentJob): Promise<{ id: string; key: string }> {
    const form = new FormData();
    for (const name of FORWARDED) {
      const value = Object.hasOwn(job.params, name) ? job.params[name]?.[0] : undefined;
      if (value) form.append(name, value);
    }
    const data = await readFile(this.store.inputFile(job.document_id));
    form.append('file', new Blob([new Uint8Array(data)]), job.file_name);
    const res = await this.send('/v2/document', form);
    const body = JSON.parse(res.toString('utf8')) as { document_id?: string; document_key?: string };
    if (!body.document_id || !body.document_key)
      throw new Error('DeepL answered the upload without a document handle.');
    return { id: body.document_id, key: body.document_key };
  }

  private call(path: string, key: string): Promise<Buffer> {
    return this.send(path, new URLSearchParams({ document_key: key }));
  }

  private async send(path: string, body: FormData | URLSearchParams): Promise<Buffer> {
    let res: Response;
    try {
      res = await fetch(this.base + path, {
        method: 'POST',
        headers: { authorization: `DeepL-Auth-Key ${this.engine.apiKey}`, 'user-agent': USER_AGENT },
        body,
        signal: AbortSignal.any([AbortSignal.timeout(60_000), this.stop]),
      });
    } catch (err) {
      if (this.stop.aborted) throw new Error('stopping');
      throw new Transient(`DeepL is unreachable (${(err as Error).message}).`);
    }
    const bytes = Buffer.from(await res.arrayBuffer());
    if (res.ok) return bytes;
    const text = bytes.toString('utf8').split(this.engine.apiKey).join('***').slice(0, 300);
    let message = text;
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? text;
    } catch {}
    if (res.status === 429 || res.status >= 500) throw new Transient(`DeepL answered ${res.status}.`);
    if (res.status === 456) throw new Error('The DeepL upstream quota is exceeded.');
    throw new Error(`DeepL refused the document (${res.status}): ${message}`.trim());
  }

  private async retrying<T>(signal: Cancellation, work: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (err) {
        if (!(err instanceof Transient) || attempt >= ATTEMPTS) throw err;
        await this.sleep(1000 * 2 ** (attempt - 1), signal);
      }
    }
  }
}
