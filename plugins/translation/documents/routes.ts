import { createReadStream } from 'node:fs';
import { extname } from 'node:path';
import { type HearthRouter, HttpError, type RouteContext } from '../../../core/sdk.ts';
import type { UsageLedger } from '../accounting/usage-ledger.ts';
import { characterCount } from '../accounting/usage-ledger.ts';
import {
  forbidden,
  invalid,
  keyLimitReached,
  notFoundError,
  notSpecified,
  quotaExceeded,
  unavailable,
} from '../errors.ts';
import { requestParams } from '../request/body.ts';
import { ParamReader } from '../request/param-reader.ts';
import type { TranslateRequest } from '../request/types.ts';
import { apiRequest } from '../routes/api.ts';
import type { ApiRequest } from '../routes/client-auth.ts';
import type { Account } from '../translate-service.ts';
import { removeFile, writeBytesAtomic } from './files.ts';
import { DocumentFormatError } from './formats/collector.ts';
import { canonicalFormat, DEEPL_ONLY, localFormat } from './formats/index.ts';
import { documentRequest, givenTarget } from './params.ts';
import type { DocumentRunner } from './runner.ts';
import { type DocumentJob, DocumentStore } from './store.ts';
import { readUpload } from './upload.ts';

export interface DocumentSettings {
  maxBytes: number;
  maxCharacters: number;
  /** Documents per key per month (0: no limit). */
  monthlyLimit: number;
  /** Documents per month for the whole hub (0: no limit). */
  teamMonthlyLimit: number;
  /** Jobs waiting or running at once; more get 429. */
  maxQueued: number;
}

export interface DocumentDeps {
  authenticate(req: ApiRequest): Promise<Account>;
  store: DocumentStore;
  runner: DocumentRunner;
  ledger: UsageLedger;
  settings: DocumentSettings;
  /** Whether a DeepL upstream can take formats Hearth does not translate itself. */
  upstream: boolean;
  /** Resolves the glossary, memory and style list a request names: the same 4xx as `/v2/translate`. */
  resources(req: TranslateRequest, account: Account): Promise<unknown>;
}

/** Ids only Hearth knows, with what they name (for the refusal of a document forwarded to DeepL). */
const LOCAL_ONLY: Record<string, string> = {
  glossary_id: 'glossaries',
  glossary_ids: 'glossaries',
  translation_memory_id: 'translation memories',
  style_id: 'style lists',
};

/** How long a status request waits for a job about to finish (spares the client a 5 s poll). */
const STATUS_WAIT_MS = 1000;

/** `POST /v2/document`, `POST /v2/document/{id}` (status), `POST /v2/document/{id}/result` (one download). */
export function mountDocuments(router: HearthRouter, deps: DocumentDeps): void {
  router.post('/v2/document', async (ctx) => {
    const account = await deps.authenticate(apiRequest(ctx));
    const tag = ctx.get('x-deepl-reporting-tag');
    if ([...tag].length > 100)
      throw invalid("Value for 'X-DeepL-Reporting-Tag' not supported (at most 100 characters).");
    const upload = await readUpload(ctx, deps.store.incoming, deps.settings.maxBytes);
    const fileName = upload.fields.filename?.[0] || upload.fileName;
    if (!fileName) throw notSpecified('filename');
    const format = canonicalFormat(extname(fileName).slice(1));
    const output = canonicalFormat(upload.fields.output_format?.[0] || format);
    const req = documentRequest(upload.fields); // the same 400s as /v2/translate
    const local = localFormat(format);
    if (local && output !== format && !deps.upstream) {
      throw invalid(
        `Converting ${format} documents to ${output} needs a DeepL upstream; none is configured.`,
      );
    }
    // DeepL's wording for a file type it does not take; what was wrong goes in `detail`.
    if (!local && !DEEPL_ONLY.has(format))
      throw new HttpError(400, 'bad_request', 'Invalid file data.', {
        body: { message: 'Invalid file data.', detail: `Documents of type '${format}' are not supported.` },
      });
    // DeepL refuses a document whose named source is its target (as given: EN-GB from EN is a conversion).
    if (req.source !== null && req.source === givenTarget(upload.fields))
      throw invalid('Source and target language are equal.');
    if (!local && !deps.upstream) {
      throw invalid(
        `Documents of type '${format}' are translated by DeepL only, and no DeepL upstream is configured.`,
      );
    }
    if (!local || output !== format) {
      // Forwarded to DeepL: Hearth's glossary, memory and style ids mean nothing there.
      const named = Object.keys(LOCAL_ONLY).find((n) => upload.fields[n]?.some((v) => v !== ''));
      if (named)
        throw invalid(
          `Value for '${named}' not supported: ${format} documents are translated by DeepL, which does not know Hearth's ${LOCAL_ONLY[named]}.`,
        );
    }
    if (local && output === format) {
      // The glossary, memory and style list it names exist and are this key's: refused now (404/400 as on
      // /v2/translate), not later as a failed job.
      await deps.resources(req, account);
      // Parsed now, so a damaged file or one over the limits is refused here, not later as a failed job.
      let cores: string[];
      try {
        cores = local.prepare(upload.file, req.target).cores;
      } catch (err) {
        if (err instanceof DocumentFormatError) throw invalid(`Invalid ${format} file: ${err.message}`);
        throw err;
      }
      const characters = cores.reduce((n, c) => n + characterCount(c), 0);
      if (characters > deps.settings.maxCharacters) {
        throw invalid(`The document has more than ${deps.settings.maxCharacters} characters to translate.`);
      }
      if (!deps.ledger.reserve(account.id, characters, account.limit)) throw keyLimitReached();
      deps.ledger.release(account.id, characters);
    }
    const { monthlyLimit, teamMonthlyLimit, maxQueued } = deps.settings;
    if (monthlyLimit > 0 && deps.store.count(account.id) >= monthlyLimit) {
      throw quotaExceeded('Quota exceeded: the document limit of this key has been reached.');
    }
    if (teamMonthlyLimit > 0 && deps.store.count(null) >= teamMonthlyLimit) {
      throw quotaExceeded('Quota exceeded: the document limit of this account has been reached.');
    }
    const waiting = deps.store.jobs.filter((j) => j.status === 'queued' || j.status === 'translating');
    if (waiting.length >= maxQueued)
      throw unavailable('Too many documents are waiting; try again later.', 429, 30);

    const { id, key } = DocumentStore.newIds();
    const now = new Date().toISOString();
    const params: Record<string, string[]> = Object.create(null);
    for (const [name, values] of Object.entries(upload.fields)) params[name] = values;
    const job: DocumentJob = {
      document_id: id,
      account: account.id,
      key_hash: DocumentStore.keyHash(key),
      status: 'queued',
      created: now,
      updated: now,
      file_name: fileName,
      format,
      output_format: output,
      params,
      limit: account.limit,
      tag,
      interruptions: 0,
    };
    await writeBytesAtomic(deps.store.inputFile(id), upload.file);
    try {
      await deps.store.add(job);
    } catch (err) {
      await removeFile(deps.store.inputFile(id));
      throw err;
    }
    deps.runner.kick();
    ctx.body = { document_id: id, document_key: key };
  });

  /** The caller's job, checked against its key (404 for another account's or an unknown id). */
  const ownJob = async (ctx: RouteContext): Promise<DocumentJob> => {
    const account = await deps.authenticate(apiRequest(ctx));
    const p = new ParamReader(await requestParams(ctx.req));
    const key = p.string('document_key');
    if (!key) throw notSpecified('document_key');
    const job = deps.store.get(ctx.params.id ?? '');
    if (!job || job.account !== account.id) throw notFoundError('Document not found.');
    if (!DocumentStore.keyMatches(job, key)) throw forbidden('Invalid document key.');
    return job;
  };

  router.post('/v2/document/:id', async (ctx) => {
    const job = await ownJob(ctx);
    await deps.runner.settled(job.document_id, STATUS_WAIT_MS);
    const now = deps.store.get(job.document_id) ?? job;
    const body: Record<string, unknown> = { document_id: now.document_id, status: now.status };
    const remaining = deps.runner.secondsRemaining(now.document_id);
    if (now.status === 'translating' && remaining !== undefined) body.seconds_remaining = remaining;
    if (now.status === 'done') body.billed_characters = now.billed_characters ?? 0;
    if (now.status === 'error') {
      // deepl-node reads `error_message`; DeepL's reference shows `message`: both are sent.
      body.message = now.error_message ?? 'The document could not be translated.';
      body.error_message = body.message;
    }
    ctx.body = body;
  });

  router.post('/v2/document/:id/result', async (ctx) => {
    const job = await ownJob(ctx);
    if (job.downloaded) throw notFoundError('Document already downloaded');
    if (job.status === 'error')
      throw invalid(`The document could not be translated: ${job.error_message ?? ''}`.trim());
    if (job.status !== 'done') throw unavailable('Document not ready', 503, 1);
    // Marked first: a second request racing this one is refused, not served twice.
    await deps.store.change(job.document_id, (j) => {
      j.downloaded = true;
    });
    const file = deps.store.outputFile(job.document_id);
    const format = localFormat(job.output_format);
    ctx.type = format?.contentType ?? 'application/octet-stream';
    const base = job.file_name.replace(/\.[^.]*$/, '');
    ctx.attachment(
      `${base}.${extname(job.file_name).slice(1) && job.output_format === job.format ? extname(job.file_name).slice(1) : job.output_format}`,
    );
    const stream = createReadStream(file);
    ctx.body = stream;
    // One download: the files go once the response has been sent (or the client went away).
    ctx.res.once('close', () => {
      void removeFile(file);
      void removeFile(deps.store.inputFile(job.document_id));
    });
  });
}
