import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { RouteContext } from '../../../core/sdk.ts';
import { invalid, tooLarge } from '../errors.ts';
import { removeFile } from './files.ts';

/** A multipart upload as koa-body (formidable) leaves it: the fields and the one file, read into memory. */
export interface Upload {
  fields: Record<string, string[]>;
  file: Buffer;
  /** The file part's own name (deepl-node sends the base name of the path, or `options.filename`). */
  fileName: string;
}

/** The parts of a formidable file this code reads. */
interface FormidableFile {
  filepath: string;
  originalFilename?: string | null;
  size: number;
}

/** koa-body (formidable) is loaded on the first upload: an idle hub does not carry it. */
let koaBodyModule: Promise<typeof import('koa-body')> | undefined;

const formidableLimit = (err: unknown): boolean =>
  typeof err === 'object' && err !== null && (err as { httpCode?: number }).httpCode === 413;

/**
 * Reads `multipart/form-data` with a real parser (formidable through koa-body): the file streams to
 * `incoming` (at most `maxBytes`, else 413), fields are bounded in number and size. Anything else is a 400
 * in DeepL's shape: a client must send the file.
 */
export async function readUpload(ctx: RouteContext, incoming: string, maxBytes: number): Promise<Upload> {
  if (!ctx.is('multipart/form-data')) {
    ctx.req.resume();
    throw invalid("Parameter 'file' not specified: send the document as multipart/form-data.");
  }
  const declared = Number(ctx.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes + 64 * 1024) {
    ctx.req.resume();
    throw tooLarge(maxBytes);
  }
  // Each upload in a directory of its own, removed whatever happens (formidable may leave a part behind).
  const dir = await mkdtemp(join(incoming, 'up-'));
  try {
    return await parseInto(ctx, dir, maxBytes);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function parseInto(ctx: RouteContext, incoming: string, maxBytes: number): Promise<Upload> {
  koaBodyModule ??= import('koa-body');
  const { koaBody } = await koaBodyModule;
  const parse = koaBody({
    multipart: true,
    json: false,
    urlencoded: false,
    text: false,
    formidable: {
      uploadDir: incoming,
      maxFiles: 1,
      maxFileSize: maxBytes,
      maxFields: 64,
      maxFieldsSize: 64 * 1024,
      allowEmptyFiles: true,
      minFileSize: 0,
      // RFC 7578 §4.4 makes a part's Content-Type optional (text/plain when absent), and §4.2 says a part
      // with a filename holds a file's content. formidable takes a part without Content-Type for a field;
      // DeepL's Python client (requests) sends its file part exactly so. A part with a filename is a file.
      onPart: (part, handle) => {
        if (typeof part.originalFilename === 'string' && !part.mimetype)
          part.mimetype = 'application/octet-stream';
        handle(part);
      },
    },
  });
  try {
    await parse(ctx, async () => {});
  } catch (err) {
    if (formidableLimit(err)) throw tooLarge(maxBytes);
    throw invalid('The upload is not a valid multipart/form-data body.');
  }
  const request = ctx.request as { body?: Record<string, unknown>; files?: Record<string, unknown> };
  const files = request.files ?? {};
  const entries = Object.values(files).flat() as FormidableFile[];
  try {
    const part = Object.hasOwn(files, 'file') ? files.file : undefined;
    const file = (Array.isArray(part) ? part[0] : part) as FormidableFile | undefined;
    if (!file) throw invalid("Parameter 'file' not specified.");
    const fields: Record<string, string[]> = Object.create(null);
    for (const [name, value] of Object.entries(request.body ?? {})) {
      fields[name] = ([] as unknown[]).concat(value).map(String);
    }
    return { fields, file: await readFile(file.filepath), fileName: file.originalFilename ?? '' };
  } finally {
    for (const f of entries) await removeFile(f.filepath);
  }
}
