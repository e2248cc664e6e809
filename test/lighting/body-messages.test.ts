/**
 * Refusals of request bodies name the real problem, on every site API call that takes a body: a body sent
 * without Content-Type is 415 (as the README says), `__proto__` is a forbidden key (not "not valid JSON"),
 * and an action of an unknown type says so (not "_id is required").
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, type LightingHarness, startLighting } from './harness.ts';

let h: LightingHarness;
let lamp: Json;
let sensor: Json;

/** A request exactly as given: no Content-Type unless one is passed (fetch would add text/plain). */
function raw(method: string, url: string, body?: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: Json }>((resolve, reject) => {
    const req = http.request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

beforeAll(async () => {
  h = await startLighting();
  lamp = (await h.call('POST', '/light', { name: 'Lamp', type: 'dimmable', vendor: 'test', testid: 'l' }))
    .body;
  sensor = (await h.call('POST', '/sensor', { name: 'S', vendor: 'test', testid: 's', type: 'button' })).body;
});
afterAll(() => h.t.stop());

/** Every site API call that takes a body, with a body it would accept. */
const calls = (): Array<[string, string, Record<string, unknown>]> => [
  ['PUT', '/light/state', { _id: lamp._id, on: true, bri: 3 }],
  ['POST', '/light', { name: 'N', type: 'binary', vendor: 'test', testid: 'n' }],
  ['PUT', '/light', { _id: lamp._id, name: 'Lamp' }],
  ['POST', '/scene', { name: 'Sc', state: [] }],
  ['PUT', '/scene/apply', { _id: 'x' }],
  ['POST', '/light/group', { name: 'G', lights: [] }],
  ['PUT', '/light/group/toggle', { _id: 'x' }],
  ['PUT', '', { name: 'Test' }],
  ['POST', '/sensor', { name: 'S2', vendor: 'test', testid: 's2', type: 'button' }],
  ['PUT', '/sensor', { _id: sensor._id, name: 'S' }],
  ['POST', '/sensor/action', { _id: sensor._id, event: '1', action: { type: 'scene', _id: 'x' } }],
  ['POST', '/sensor/event', { _id: sensor._id, event: '1' }],
  ['POST', '/connection/discover', { _id: 'td', duration: 1 }],
];

describe('body refusals name the real problem (regression)', () => {
  it('answers a JSON body sent without Content-Type with 415 on every call, and no body at all with 400', async () => {
    for (const [method, path, body] of calls()) {
      const untyped = await raw(method, h.api + path, JSON.stringify(body));
      expect(untyped, `${method} ${path}`).toEqual({
        status: 415,
        body: { message: 'Content-Type: application/json is missing' },
      });
      const empty = await raw(method, h.api + path);
      expect(empty, `${method} ${path} empty`).toEqual({
        status: 400,
        body: { message: 'a JSON body is required (Content-Type: application/json)' },
      });
    }
  });

  it('names __proto__ as a forbidden key instead of calling the JSON invalid', async () => {
    const json = { 'content-type': 'application/json' };
    for (const [method, path] of calls()) {
      for (const text of ['{"__proto__": {"x": 1}}', '{"name": "a", "state": [{"__proto__": null}]}']) {
        const res = await raw(method, h.api + path, text, json);
        expect(res, `${method} ${path} ${text}`).toEqual({
          status: 400,
          body: { message: 'Request body must not use __proto__ as a key' },
        });
      }
    }
    // Broken JSON is still called that.
    expect((await raw('POST', `${h.api}/light`, '{"name": ', json)).body).toEqual({
      message: 'Request body is not valid JSON',
    });
  });

  it('says an action type is unknown or missing before asking for its _id, and names nested fields by path', async () => {
    const add = (action: unknown) =>
      h.call('POST', '/sensor/action', { _id: sensor._id, event: '1', action });
    expect((await add({ type: 'colour' })).body).toEqual({
      message: 'action.type must be "light", "scene" or "group/toggle"',
    });
    expect((await add({ _id: lamp._id })).body).toEqual({
      message: 'action.type is required ("light", "scene" or "group/toggle")',
    });
    expect((await add({ type: 'light', on: true, bri: 3 })).body).toEqual({
      message: 'action._id is required',
    });
    expect((await add({ type: 'scene', _id: 'x', bri: 3 })).body).toEqual({
      message: 'unknown field action.bri',
    });
    const scene = await h.call('POST', '/scene', { name: 'Sc', state: [{ on: true, bri: 3 }] });
    expect(scene).toMatchObject({ status: 400, body: { message: 'state[0]._id is required' } });
    expect((await h.call('GET', '/sensor')).body[0].actions).toEqual({});
  });
});
