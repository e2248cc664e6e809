import { createReadStream } from 'node:fs';
import type { HearthRouter } from '../../../core/sdk.ts';
import { forbidden, invalid, notFoundError, notSupported } from '../errors.ts';
import { ownValue } from '../own.ts';
import { queryAndBodyParams, requestParams } from '../request/body.ts';
import { ParamReader } from '../request/param-reader.ts';
import { apiRequest } from '../routes/api.ts';
import type { ApiRequest } from '../routes/client-auth.ts';
import type { Account } from '../translate-service.ts';
import type { MemoryJob, MemoryStore, Segment } from './store.ts';

/** The largest TMX file an import takes. */
export const MAX_TMX_BYTES = 512 * 1024 * 1024;

export interface MemoryDeps {
  authenticate(req: ApiRequest): Promise<Account>;
  memories: MemoryStore;
}

type Ctx = Parameters<Parameters<HearthRouter['get']>[1]>[0];

const UPLOAD = '/v3/translation_memories/jobs/:id/upload';
const DOWNLOAD = '/v3/translation_memories/jobs/:id/download';

/** The job as the clients read it: exactly one result (deepl-node fails closed on anything else). */
function jobBody(job: MemoryJob, urls: { download?: string } = {}) {
  const result: Record<string, unknown> = { status: job.status };
  if (job.status === 'awaiting_input') result.status_metadata = { required_action: 'upload_file' };
  if (job.translation_memory_id && job.operation === 'import')
    result.translation_memory_id = job.translation_memory_id;
  if (job.skipped_segment_count !== undefined) result.skipped_segment_count = job.skipped_segment_count;
  if (job.error) result.error = { message: job.error };
  if (urls.download && (job.status === 'completed' || job.status === 'downloaded')) {
    result.download_url = urls.download;
    result.expires_at = job.expires_at;
  }
  const parameters: Record<string, unknown> = {};
  if (job.translation_memory_id) parameters.translation_memory_id = job.translation_memory_id;
  if (job.display_name) parameters.display_name = job.display_name;
  return {
    job_id: job.job_id,
    operation: job.operation,
    product: 'translation_memory',
    creation_time: job.creation_time,
    updated_time: job.updated_time,
    parameters,
    ...(job.operation === 'import'
      ? {
          source_file: {
            content_type: job.content_type ?? 'application/xml',
            content_length: job.content_length,
          },
        }
      : {}),
    results: [result],
  };
}

const origin = (ctx: Ctx) => `${ctx.protocol}://${ctx.host}`;

const pageNumber = (p: ParamReader, name: string, fallback: number, min: number, max: number) => {
  const text = p.string(name);
  if (text === undefined) return fallback;
  if (!/^\d{1,9}$/.test(text) || Number(text) < min || Number(text) > max) throw notSupported(name);
  return Number(text);
};

/** `/v3/translation_memories…`: list, info, segments, delete, TMX import and export jobs. */
export function mountMemories(router: HearthRouter, deps: MemoryDeps): void {
  const who = async (ctx: Ctx) => (await deps.authenticate(apiRequest(ctx))).id;

  router.get('/v3/translation_memories', async (ctx) => {
    const account = await who(ctx);
    const p = new ParamReader(await queryAndBodyParams(ctx.req, ctx.querystring));
    const page = pageNumber(p, 'page', 0, 0, 1e9);
    const size = pageNumber(p, 'page_size', 10, 1, 25);
    const all = await deps.memories.list(account);
    ctx.body = { translation_memories: all.slice(page * size, page * size + size), total_count: all.length };
  });

  router.get('/v3/translation_memories/:id', async (ctx) => {
    ctx.body = await deps.memories.get(await who(ctx), ctx.params.id as string);
  });

  router.delete('/v3/translation_memories/:id', async (ctx) => {
    await deps.memories.delete(await who(ctx), ctx.params.id as string);
    ctx.status = 204;
  });

  // Cursor paging: the cursor is the offset of the next segment (opaque to clients).
  router.get('/v3/translation_memories/:id/segments', async (ctx) => {
    const account = await who(ctx);
    const p = new ParamReader(await queryAndBodyParams(ctx.req, ctx.querystring));
    const size = pageNumber(p, 'page_size', 50, 1, 100);
    const cursorText = p.string('page_cursor');
    let offset = 0;
    if (cursorText) {
      const decoded = Buffer.from(cursorText, 'base64url').toString('utf8');
      if (!/^o:\d{1,9}$/.test(decoded)) throw notSupported('page_cursor');
      offset = Number(decoded.slice(2));
    }
    const filter = p.string('filter_text') ?? '';
    const caseSensitive = p.boolean('filter_case_sensitive') ?? false;
    const memory = await deps.memories.load(account, ctx.params.id as string);
    const fold = (s: string) => (caseSensitive ? s : s.toLowerCase());
    const needle = fold(filter);
    const matches = (s: Segment) =>
      needle === '' ||
      fold(s.source).includes(needle) ||
      Object.values(s.targets).some((t) => fold(t).includes(needle));
    const page: Array<{ at: number; segment: Segment }> = [];
    let next: number | null = null;
    let total = 0;
    memory.segments.forEach((segment, at) => {
      if (!matches(segment)) return;
      total++;
      if (at < offset) return;
      if (page.length < size) page.push({ at, segment });
      else if (next === null) next = at;
    });
    const time = memory.info.creation_time;
    ctx.body = {
      segments: page.map(({ at, segment }) => ({
        source_segment_id: `s${at}`,
        source_text: segment.source,
        creation_time: time,
        updated_time: time,
        targets: Object.entries(segment.targets).map(([lang, text]) => ({
          target_segment_id: `s${at}-${lang}`,
          target_language: lang,
          target_text: text,
          creation_time: time,
          updated_time: time,
        })),
      })),
      segment_count: total,
      ...(next !== null ? { next_page_cursor: Buffer.from(`o:${next}`).toString('base64url') } : {}),
    };
  });

  router.post('/v3/translation_memories/import', async (ctx) => {
    const account = await who(ctx);
    const raw = await requestParams(ctx.req);
    if (raw.kind !== 'json') throw invalid('The import request is a JSON body.');
    const file = ownValue(raw.values, 'source_file') as Record<string, unknown> | undefined;
    if (!file || typeof file !== 'object') throw invalid("Parameter 'source_file' not specified.");
    const name = ownValue(file, 'file_name');
    const length = ownValue(file, 'content_length');
    const type = ownValue(file, 'content_type');
    if (typeof name !== 'string' || name === '')
      throw invalid("Parameter 'source_file.file_name' not specified.");
    if (!Number.isSafeInteger(length) || (length as number) <= 0 || (length as number) > MAX_TMX_BYTES) {
      throw notSupported('source_file.content_length');
    }
    if (type !== undefined && typeof type !== 'string') throw notSupported('source_file.content_type');
    const parameters = ownValue(raw.values, 'parameters') as Record<string, unknown> | undefined;
    const display =
      parameters && typeof parameters === 'object' ? ownValue(parameters, 'display_name') : undefined;
    if (display !== undefined && typeof display !== 'string') throw notSupported('parameters.display_name');
    const { job, token } = await deps.memories.createImport(account, {
      file_name: name,
      content_length: length as number,
      ...(type ? { content_type: type as string } : {}),
      ...(display ? { display_name: display as string } : {}),
    });
    ctx.body = {
      job_id: job.job_id,
      upload_url: `${origin(ctx)}${UPLOAD.replace(':id', job.job_id)}?token=${token}`,
      expires_at: job.expires_at,
    };
  });

  // The upload URL is the credential (like a pre-signed storage URL): clients send it without a key.
  router.put(UPLOAD, async (ctx) => {
    const job = deps.memories.jobByToken(ctx.params.id as string, String(ctx.query.token ?? ''));
    if (!job) throw forbidden();
    if (job.status !== 'awaiting_input' || job.expires_at < new Date().toISOString()) {
      ctx.req.resume();
      throw invalid(`The job is ${job.status}; the upload URL can be used once, within an hour.`);
    }
    const declared = Number(ctx.get('content-length'));
    if (declared > MAX_TMX_BYTES) {
      ctx.req.resume();
      throw invalid(`A TMX file may be at most ${MAX_TMX_BYTES / 1048576} MiB.`);
    }
    await deps.memories.receiveUpload(job, ctx.req);
    ctx.status = 200;
    ctx.body = '';
  });

  router.post('/v3/translation_memories/:id/export', async (ctx) => {
    const account = await who(ctx);
    const { job, reused, done } = await deps.memories.createExport(account, ctx.params.id as string);
    // A small memory is written within moments: waiting briefly spares the client a 5 s poll.
    await Promise.race([done, new Promise((r) => setTimeout(r, 1000).unref())]);
    ctx.status = reused ? 200 : 202;
    ctx.body = { job_id: job.job_id, parameters: { translation_memory_id: job.translation_memory_id } };
  });

  router.get('/v3/translation_memories/jobs/:id', async (ctx) => {
    const job = deps.memories.job(await who(ctx), ctx.params.id as string);
    ctx.body = jobBody(job, job.download_path ? { download: `${origin(ctx)}${job.download_path}` } : {});
  });

  router.get(DOWNLOAD, async (ctx) => {
    const job = deps.memories.jobByToken(ctx.params.id as string, String(ctx.query.token ?? ''));
    if (!job) throw forbidden();
    if (
      (job.status !== 'completed' && job.status !== 'downloaded') ||
      job.expires_at < new Date().toISOString()
    ) {
      throw notFoundError('The export is not available.');
    }
    ctx.type = 'application/xml';
    ctx.body = createReadStream(deps.memories.exportFile(job.job_id));
    await deps.memories.markDownloaded(job);
  });
}
