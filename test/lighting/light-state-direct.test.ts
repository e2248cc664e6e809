/**
 * PUT /light/state is answered ahead of Koa when its body is a plain JSON body with a Content-Length, and
 * by the Koa route otherwise (chunked, compressed, another type). Both must answer every request alike:
 * the same status, body and headers, for good and bad input, wrong keys and both path prefixes.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, type LightingHarness, startLighting } from './harness.ts';

let h: LightingHarness;
let lightId = '';

beforeAll(async () => {
  h = await startLighting();
  const created = await h.call('POST', '/light', {
    name: 'Desk',
    type: 'dimmable',
    vendor: 'test',
    testid: 'd1',
  });
  lightId = created.body._id;
}, 120_000);
afterAll(() => h.t.stop());

/** One PUT with the body sent whole (Content-Length) or chunked (no length: the Koa route's only). */
function put(
  url: string,
  text: string,
  chunked: boolean,
  type = 'application/json',
): Promise<{ status: number; body: Json; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const headers: Record<string, string> = { 'content-type': type };
    if (!chunked) headers['content-length'] = String(Buffer.byteLength(text));
    const req = httpRequest(
      { host: u.hostname, port: u.port, path: u.pathname, method: 'PUT', headers },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          data += c;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(data), headers: res.headers }),
        );
      },
    );
    req.on('error', reject);
    if (chunked) {
      // Two writes without a length: Node sends Transfer-Encoding: chunked.
      req.write(text.slice(0, 1));
      req.end(text.slice(1));
    } else req.end(text);
  });
}

describe('PUT /light/state, direct and through Koa', () => {
  it('answers every kind of request the same whichever way its body is sent', async () => {
    const good = (bri: number) => JSON.stringify({ _id: lightId, on: true, bri });
    const shortUrl = `${h.t.url}/site/${h.sitekey}/light/state`;
    const wrongKey = `${h.api.slice(0, -2)}${h.api.endsWith('AA') ? 'BB' : 'AA'}/light/state`;
    const cases: Array<[string, string, string?]> = [
      [`${h.api}/light/state`, good(40)],
      [shortUrl, good(41)],
      [`${h.api}/light/state`, `\ufeff${good(42)}`],
      [`${h.api}/light/state`, good(43), 'application/json; charset=utf-8'],
      [`${h.api}/light/state`, '{"_id": '],
      [`${h.api}/light/state`, '"text"'],
      [`${h.api}/light/state`, '[]'],
      [`${h.api}/light/state`, '{"__proto__": {"x": 1}}'],
      [`${h.api}/light/state`, '{"a": {"\\u005f_proto__": 1}}'],
      [`${h.api}/light/state`, JSON.stringify({ _id: lightId, on: true })],
      [`${h.api}/light/state`, JSON.stringify({ _id: lightId, on: true, bri: 256 })],
      [`${h.api}/light/state`, JSON.stringify({ _id: 'nope', on: true, bri: 1 })],
      [wrongKey, good(44)],
      [wrongKey, '{"_id": '],
      [`${h.api}/light/state`, good(45), 'text/plain'],
    ];
    for (const [url, text, type] of cases) {
      const direct = await put(url, text, false, type);
      const koa = await put(url, text, true, type);
      const shown = `${url.replace(h.sitekey, '<key>')} ${text}`;
      expect({ status: direct.status, body: direct.body }, shown).toEqual({
        status: koa.status,
        body: koa.body,
      });
      for (const name of ['content-type', 'x-content-type-options'])
        expect(direct.headers[name], `${shown}: ${name}`).toBe(koa.headers[name]);
      expect(direct.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
    // The spot checks that make the comparison mean something.
    expect((await put(`${h.api}/light/state`, good(46), false)).body).toMatchObject({
      _id: lightId,
      bri: 46,
    });
    expect((await put(wrongKey, good(47), false)).status).toBe(404);
    expect((await put(`${h.api}/light/state`, '{"_id": ', false)).body).toEqual({
      message: 'Request body is not valid JSON',
    });
    expect((await put(`${h.api}/light/state`, '{"__proto__": 1}', false)).body).toEqual({
      message: 'Request body must not use __proto__ as a key',
    });
  });
});
