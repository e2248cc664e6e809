import { brotliCompressSync, deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { definePlugin } from '../../core/plugin/types.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';
import { kvPlugin } from './fixtures/kv-plugin.ts';
import { echoPlugin } from './fixtures/plugins.ts';

/** A plugin with a listener of its own, like the authorization server. */
const ownListener = definePlugin({
  name: 'ownlistener',
  version: '1.0.0',
  description: 'test plugin: its own listener',
  configSchema: { type: 'object', properties: {} },
  async start(ctx) {
    await ctx.http.listen('own', { port: 0 });
    ctx.http.router('own').post('/own', (k) => {
      k.body = { got: k.request.body };
    });
    return { stop() {} };
  },
});

describe('a body that does not decode as its Content-Encoding says', () => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub({
      plugins: ['lighting', 'auth'],
      extraPlugins: [echoPlugin, kvPlugin, ownListener],
    });
  });
  afterAll(() => t.stop());

  const targets = () => [
    { listener: 'main', url: `${t.url}/echo`, type: 'application/json', auth: undefined },
    {
      listener: 'admin',
      url: `${t.adminUrl}/admin/kv`,
      type: 'application/json',
      auth: `Bearer ${t.adminKey}`,
      method: 'PUT',
    },
    { listener: 'plugin', url: `${t.listenerUrl('own')}/own`, type: 'application/json', auth: undefined },
    {
      listener: 'auth',
      url: `${t.listenerUrl('auth')}/oauth/token`,
      type: 'application/x-www-form-urlencoded',
      auth: undefined,
    },
  ];

  const send = (
    target: ReturnType<typeof targets>[number],
    encoding: string,
    body: Buffer | string,
  ): Promise<Response> =>
    fetch(target.url, {
      method: target.method ?? 'POST',
      headers: {
        'content-type': target.type,
        'content-encoding': encoding,
        ...(target.auth ? { authorization: target.auth } : {}),
      },
      body: typeof body === 'string' ? body : new Uint8Array(body),
    });

  it('answers 400 for gzip, deflate and br alike on every listener (br answered 500)', async () => {
    const seen: string[] = [];
    for (const target of targets()) {
      for (const encoding of ['gzip', 'deflate', 'br']) {
        const res = await send(target, encoding, '{"value":"not compressed at all"}');
        seen.push(`${target.listener} ${encoding} ${res.status}`);
        expect(res.headers.get('content-type')).toMatch(/json/);
      }
    }
    expect(seen).toEqual(
      targets().flatMap((x) => ['gzip', 'deflate', 'br'].map((e) => `${x.listener} ${e} 400`)),
    );
  });

  it('answers 415 for an encoding it does not know, and decodes real br and deflate bodies', async () => {
    for (const target of targets()) {
      const res = await send(target, 'compress', 'x');
      // The token endpoint reads its own form body and refuses it as an invalid request instead.
      const expected = target.listener === 'auth' ? [400, 415] : [415];
      expect({ listener: target.listener, status: res.status, ok: expected.includes(res.status) }).toEqual({
        listener: target.listener,
        status: res.status,
        ok: true,
      });
      if (res.status === 415) expect(res.headers.get('accept-encoding')).toBe('gzip, deflate, br');
    }
    const [main] = targets();
    const br = await send(main as ReturnType<typeof targets>[number], 'br', brotliCompressSync('{"a":1}'));
    expect(await br.json()).toEqual({ got: { a: 1 } });
    const deflated = await send(
      main as ReturnType<typeof targets>[number],
      'deflate',
      deflateSync('{"a":2}'),
    );
    expect(await deflated.json()).toEqual({ got: { a: 2 } });
    const bad = await send(main as ReturnType<typeof targets>[number], 'br', 'nope');
    expect(await bad.json()).toEqual({ message: 'Request body does not match its Content-Encoding' });
  });
});
