/**
 * Document throughput (part of `npm run bench:translation`): a 100-page docx through a real hub and a
 * loopback DeepL-shaped upstream, from upload to the downloaded result, next to the time the engine itself
 * spent answering (its own handling, summed over calls), and the in-process cost of reading and writing
 * the file. Printed, never asserted.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as deepl from 'deepl-node';
import { strToU8, zipSync } from 'fflate';
import { prepareDocx } from '../../plugins/translation/documents/formats/office.ts';
import { startTestHub } from '../../test/helpers/hub.ts';

const PAGES = 100;
const PARAGRAPHS_PER_PAGE = 30;
const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';

/** About 2,400 characters a page in 30 paragraphs, a third of them with a bold run. */
function hundredPageDocx(): Buffer {
  const paragraphs: string[] = [];
  for (let p = 0; p < PAGES * PARAGRAPHS_PER_PAGE; p++) {
    const words = `Paragraph ${p} of the household manual explains how the hall light and the kitchen switch work together`;
    const runs =
      p % 3 === 0
        ? `<w:r><w:t xml:space="preserve">${words} </w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t>in the evening.</w:t></w:r>`
        : `<w:r><w:t>${words} in the evening.</w:t></w:r>`;
    paragraphs.push(`<w:p><w:pPr><w:spacing w:after="120"/></w:pPr>${runs}</w:p>`);
  }
  const document = `<?xml version="1.0" encoding="UTF-8"?><w:document ${W}><w:body>${paragraphs.join('')}</w:body></w:document>`;
  const zipped = zipSync({
    '[Content_Types].xml': strToU8('<Types/>'),
    'word/document.xml': strToU8(document),
  });
  return Buffer.from(zipped);
}

/** A DeepL-shaped upstream that upper-cases after `delayMs`, and adds up its own handling time. */
async function upstream(delayMs: number) {
  const stats = { calls: 0, ms: 0, busyMs: 0, active: 0, since: 0 };
  const server = http.createServer((req, res) => {
    const started = performance.now();
    const counted = req.url?.startsWith('/v2/translate');
    // Wall time with at least one call in progress (calls overlap: their sum would count time twice).
    if (counted && stats.active++ === 0) stats.since = started;
    const body: Buffer[] = [];
    req.on('data', (c: Buffer) => body.push(c));
    req.on('end', () => {
      const answer = () => {
        const raw = Buffer.concat(body).toString();
        const parsed = raw.startsWith('{')
          ? JSON.parse(raw)
          : { text: new URLSearchParams(raw).getAll('text') };
        const out = req.url?.startsWith('/v2/languages')
          ? JSON.stringify([
              { language: 'EN', name: 'English' },
              { language: 'DE', name: 'German' },
            ])
          : JSON.stringify({
              translations: ([] as string[])
                .concat(parsed.text ?? [])
                .map((t) => ({ detected_source_language: 'EN', text: t.toUpperCase() })),
            });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(out);
        if (counted) {
          const now = performance.now();
          stats.calls++;
          stats.ms += now - started;
          if (--stats.active === 0) stats.busyMs += now - stats.since;
        }
      };
      if (delayMs > 0 && !req.url?.startsWith('/v2/languages')) setTimeout(answer, delayMs);
      else answer();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stats,
    close: () => new Promise((r) => server.close(r)),
  };
}

export async function documentBench(): Promise<void> {
  const input = hundredPageDocx();
  const t0 = performance.now();
  const prepared = prepareDocx(input);
  const parseMs = performance.now() - t0;
  const t1 = performance.now();
  prepared.finish(prepared.cores.map((c) => c.toUpperCase()));
  const writeMs = performance.now() - t1;
  const characters = prepared.cores.reduce((n, c) => n + c.length, 0);
  console.log(
    `document: 100-page docx, ${(input.length / 1024).toFixed(0)} KiB, ${prepared.cores.length} paragraphs, ` +
      `${characters} characters; read ${parseMs.toFixed(0)} ms, write ${writeMs.toFixed(0)} ms (in process)`,
  );
  for (const delayMs of [0, 50]) {
    const up = await upstream(delayMs);
    const hub = await startTestHub({
      plugins: ['translation'],
      config: {
        plugins: {
          translation: { engines: [{ type: 'deepl', url: up.url, apiKey: 'bench', timeoutMs: 60000 }] },
        },
      },
    });
    const key = await (
      await fetch(`${hub.url}/v2/admin/developer-keys`, {
        method: 'POST',
        headers: { authorization: `DeepL-Auth-Key ${hub.adminKey}`, 'content-type': 'application/json' },
        body: '{}',
      })
    ).json();
    const translator = new deepl.Translator(key.key, { serverUrl: hub.url, maxRetries: 0 });
    // Warm-up: the first upload loads the multipart parser and warms the code paths.
    await translator
      .translateDocument(
        Buffer.from('Warm up'),
        path.join(tmpdir(), `hearth-warm-${process.pid}.txt`),
        'en',
        'de',
        { filename: 'warm.txt' },
      )
      .catch(() => {});
    rmSync(path.join(tmpdir(), `hearth-warm-${process.pid}.txt`), { force: true });
    up.stats.calls = 0;
    up.stats.ms = 0;
    up.stats.busyMs = 0;
    const started = performance.now();
    const handle = await translator.uploadDocument(input, 'en', 'de', { filename: 'manual.docx' });
    let status = await translator.getDocumentStatus(handle);
    while (!status.done() && status.ok()) status = await translator.getDocumentStatus(handle);
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'hearth-bench-doc-')), 'manual.docx');
    await translator.downloadDocument(handle, out);
    const total = performance.now() - started;
    console.log(
      `document: upstream ${delayMs} ms per call: upload to download ${(total / 1000).toFixed(2)} s ` +
        `(${((characters / total) * 1000).toFixed(0)} characters/s); the engine's own time ` +
        `${(up.stats.busyMs / 1000).toFixed(2)} s busy (${(up.stats.ms / 1000).toFixed(2)} s summed over ${up.stats.calls} calls); ` +
        `Hearth alone ${((total - up.stats.busyMs) / 1000).toFixed(2)} s ` +
        `(${status.status}, ${(statSync(out).size / 1024).toFixed(0)} KiB out)`,
    );
    await hub.stop();
    rmSync(path.dirname(out), { recursive: true, force: true });
    await up.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await documentBench();
