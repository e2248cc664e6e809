/** Direct routes: an exact method and path a listener answers ahead of its Koa stack. */
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpError } from '../../core/http/errors.ts';
import { Listener } from '../../core/http/listener.ts';
import { createRouter } from '../../core/http/router.ts';
import type { DirectRoute } from '../../core/http/types.ts';

const log = pino({ level: 'silent' });
let listener: Listener | undefined;

afterEach(async () => {
  await listener?.close();
  listener = undefined;
});

async function start(route: Partial<DirectRoute> = {}, observed: unknown[][] = []) {
  listener = new Listener('t', log, { observe: (...args) => observed.push(args) });
  const router = createRouter({}, '1mb');
  router.post('/x', (ctx) => {
    ctx.body = { via: 'koa' };
  });
  listener.mount('p', router);
  listener.addDirect('p', {
    method: 'POST',
    path: '/x',
    handle: async ({ querystring }) => ({ via: 'direct', querystring }),
    errorBody: ({ message }) => ({ message }),
    ...route,
  });
  const { url } = await listener.listen(0, '127.0.0.1');
  const post = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${url}${path}`, { method: 'POST', headers });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  };
  return { post, listener };
}

describe('a direct route', () => {
  it('answers its exact path (any query) itself, and leaves every other spelling to Koa', async () => {
    const observed: unknown[][] = [];
    const { post } = await start({}, observed);
    const direct = await post('/x?a=1', { 'x-request-id': 'abc-1' });
    expect(direct).toMatchObject({ status: 200, body: { via: 'direct', querystring: 'a=1' } });
    expect(direct.headers.get('x-request-id')).toBe('abc-1');
    expect(direct.headers.get('x-content-type-options')).toBe('nosniff');
    expect(direct.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect((await post('/x/')).body).toEqual({ via: 'koa' });
    expect((await post('/X')).body).toEqual({ via: 'koa' });
    expect(observed[0]).toEqual(['/x', 'POST', 200, expect.any(Number)]);
  });

  it('answers errors in its shape, with their headers; a 5xx never shows its message', async () => {
    let thrown: unknown = new HttpError(429, 'busy', 'Slow down', { headers: { 'Retry-After': '3' } });
    const { post } = await start({
      handle: async () => {
        throw thrown;
      },
    });
    const busy = await post('/x');
    expect([busy.status, busy.body, busy.headers.get('retry-after')]).toEqual([
      429,
      { message: 'Slow down' },
      '3',
    ]);
    expect(busy.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    thrown = new Error('secret internals');
    expect(await post('/x')).toMatchObject({ status: 500, body: { message: 'Internal server error' } });
  });

  it('is not used while the hub is not ready: Koa answers (503 while restoring)', async () => {
    const { post, listener: l } = await start();
    (l as unknown as { availability: { phase: string } }).availability.phase = 'restoring';
    const res = await post('/x');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('2');
  });

  it('goes with its owner, and is refused where another owner routes the path or a guard applies', async () => {
    const { post, listener: l } = await start();
    const other = createRouter({}, '1mb');
    other.post('/y', (ctx) => {
      ctx.body = {};
    });
    l.mount('q', other);
    const y: DirectRoute = { method: 'POST', path: '/y', handle: async () => ({}) };
    expect(() => l.addDirect('p', y)).toThrow(/routed to q/);
    expect(() => l.addDirect('p', { ...y, path: '/x' })).toThrow(/exists/);
    l.unmount('p');
    expect((await post('/x')).status).toBe(404);
    const guarded = new Listener('g', log, { guard: async (_ctx, next) => next() });
    expect(() => guarded.addDirect('p', { ...y, path: '/z' })).toThrow(/guarded/);
  });

  it('with a :name segment, answers one plain segment; encoded, empty or nested values and declined requests go to Koa', async () => {
    listener = new Listener('t', log);
    const router = createRouter({}, '1mb');
    router.put('/site/:key/state', (ctx) => {
      ctx.body = { via: 'koa', key: ctx.params.key };
    });
    listener.mount('p', router);
    const seen: number[] = [];
    listener.addDirect('p', {
      method: 'PUT',
      path: '/site/:key/state',
      accepts: (req, bodyLimit) => {
        seen.push(bodyLimit);
        return req.headers['x-decline'] === undefined;
      },
      handle: async ({ params, path }) => ({ via: 'direct', key: params.key, path }),
    });
    expect(() =>
      listener?.addDirect('p', { method: 'PUT', path: '/a/:b/:c', handle: async () => ({}) }),
    ).toThrow(/one :name/);
    const { url } = await listener.listen(0, '127.0.0.1');
    const put = async (path: string, headers: Record<string, string> = {}) =>
      (await fetch(`${url}${path}`, { method: 'PUT', headers })).json();
    expect(await put('/site/k1/state?x=1')).toEqual({ via: 'direct', key: 'k1', path: '/site/k1/state' });
    expect(seen).toEqual([1024 * 1024]);
    expect(await put('/site/k%31/state')).toEqual({ via: 'koa', key: 'k1' });
    expect(await put('/site/k1/state', { 'x-decline': '1' })).toEqual({ via: 'koa', key: 'k1' });
    expect((await fetch(`${url}/site//state`, { method: 'PUT' })).status).toBe(404);
    expect((await fetch(`${url}/site/a/b/state`, { method: 'PUT' })).status).toBe(404);
    expect(await put('/site/k1/state/')).toEqual({ via: 'koa', key: 'k1' });
    listener.unmount('p');
    expect((await fetch(`${url}/site/k1/state`, { method: 'PUT' })).status).toBe(404);
  });
});
