import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '../helpers/hub.ts';

/** A raw GET (no transparent decompression), so the test sees what went over the wire. */
function rawGet(url: string, acceptEncoding?: string) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>(
    (resolve, reject) => {
      const req = http.get(
        url,
        { headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
          );
        },
      );
      req.on('error', reject);
    },
  );
}

let t: TestHub;
let sitekey: string;
beforeAll(async () => {
  t = await startTestHub({ plugins: ['lighting'] });
  sitekey = ((await t.admin('POST', '/admin/sites', { name: 'Flat' })).body as { sitekey: string }).sitekey;
});
afterAll(() => t.stop());

describe('compressed web assets', () => {
  it('sends the app scripts brotli- or gzip-compressed to browsers that accept it, the same bytes unpacked', async () => {
    const plain = await rawGet(`${t.url}/lighting/ui/app.js`);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);

    const br = await rawGet(`${t.url}/lighting/ui/app.js`, 'gzip, deflate, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.body.length).toBeLessThan(plain.body.length / 2);
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);

    const gz = await rawGet(`${t.url}/lighting/ui/app.js`, 'gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
  });

  it('never compresses the page or API answers, which can carry a secret next to text a requester chose', async () => {
    const page = await rawGet(`${t.url}/site/${sitekey}`, 'br, gzip');
    expect(page.status).toBe(200);
    expect(page.headers['content-encoding']).toBeUndefined();
    const api = await rawGet(`${t.url}/api/site/${sitekey}/light`, 'br, gzip');
    expect(api.status).toBe(200);
    expect(api.headers['content-encoding']).toBeUndefined();
  });
});
