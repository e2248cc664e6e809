/**
 * The promise (README "Field rules (spec)"): "Bad input (malformed JSON, unknown `_id`, wrong types, out-of-range `bri`, missing fields,
 * unknown site key) gets a 4xx JSON body {"message": "..."} that says what is wrong. Nothing stored changes
 * on a rejected request." Every body-taking route of the README table, every field replaced by values of
 * the wrong kind, through real HTTP; then the site, the durable file and the driver are checked untouched.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, type LightingHarness, request, startLighting } from './harness.ts';

let h: LightingHarness;
let ids: { light: string; binary: string; scene: string; group: string; sensor: string; action: string };

beforeAll(async () => {
  h = await startLighting();
  const post = async (p: string, body: unknown) => (await h.call('POST', p, body)).body as Json;
  const light = await post('/light', { name: 'Desk', type: 'dimmable', vendor: 'test', testid: 'd1' });
  const binary = await post('/light', { name: 'Hall', type: 'binary', vendor: 'test', testid: 'h1' });
  const scene = await post('/scene', { name: 'Eve', state: [{ _id: light._id, on: true, bri: 9 }] });
  const group = await post('/light/group', { name: 'All', lights: [light._id, binary._id] });
  const sensor = await post('/sensor', { name: 'Wall', vendor: 'test', testid: 'b1', type: 'button' });
  const bound = await post('/sensor/action', {
    _id: sensor._id,
    event: '1',
    action: { type: 'scene', _id: scene._id },
  });
  ids = {
    light: light._id,
    binary: binary._id,
    scene: scene._id,
    group: group._id,
    sensor: sensor._id,
    action: bound.actions['1'][0].actionid,
  };
});
afterAll(() => h.t.stop());

type Field =
  | 'id'
  | 'str'
  | 'bool'
  | 'bri'
  | 'ids'
  | 'names'
  | 'entries'
  | 'action'
  | 'vendor'
  | 'type'
  | 'int';

/** Values that are wrong for a field of each kind (never a value the route could accept). */
const WRONG: Record<Field, unknown[]> = {
  id: [5, null, true, [], {}, '', 'ghost'],
  str: [5, null, false, [], {}, '', ' ', 'x'.repeat(201)],
  bool: ['true', 1, 0, null, [], {}],
  bri: [-1, 256, 1.5, '5', null, true, [], {}, Number.MAX_SAFE_INTEGER],
  ids: ['x', [1], [''], {}, null, ['ghost'], 5],
  names: ['x', [1], [''], {}, null, 5, ['x'.repeat(65)]],
  entries: ['all', {}, null, [null], [5], [{}], [{ _id: 'ghost', on: true, bri: 1 }], [[]]],
  action: [null, [], 'scene', {}, { type: 'dance', _id: 'x' }, { type: 'light' }, { type: 'scene' }],
  vendor: ['Bad Vendor', 5, null, '', '-x', 'x'.repeat(40)],
  type: ['rgb', 5, null, '', []],
  // (`duration: null` means the default, like leaving it out)
  int: [0, 255, 1.5, '30', -3, true],
};

interface Route {
  method: string;
  path: string;
  /** A request the route would accept. */
  body: Record<string, unknown>;
  kinds: Record<string, Field>;
  /** Fields whose absence is refused. */
  required: string[];
  /** Create/modify bodies refuse unknown fields (README); the commands ignore them. */
  strict: boolean;
}

const entry = () => [{ _id: ids.light, on: true, bri: 1 }];

function routes(): Route[] {
  return [
    {
      method: 'PUT',
      path: '',
      body: { name: 'Home' },
      kinds: { name: 'str' },
      required: ['name'],
      strict: true,
    },
    {
      method: 'POST',
      path: '/connection/discover',
      body: { _id: 'td', duration: 1 },
      kinds: { _id: 'id', duration: 'int' },
      required: ['_id'],
      strict: true,
    },
    {
      method: 'PUT',
      path: '/light/state',
      body: { _id: ids.light, on: true, bri: 10 },
      kinds: { _id: 'id', on: 'bool', bri: 'bri' },
      required: ['_id', 'on', 'bri'],
      strict: false,
    },
    {
      method: 'POST',
      path: '/light',
      body: { name: 'N', type: 'dimmable', vendor: 'test', testid: 'new1' },
      kinds: { name: 'str', type: 'type', vendor: 'vendor', testid: 'str' },
      required: ['name', 'type', 'vendor', 'testid'],
      strict: true,
    },
    {
      method: 'PUT',
      path: '/light',
      body: { _id: ids.light, name: 'N', type: 'binary', testid: 'new2' },
      kinds: { _id: 'id', name: 'str', type: 'type', testid: 'str' },
      required: ['_id'],
      strict: true,
    },
    {
      method: 'POST',
      path: '/light/group',
      body: { name: 'G', lights: [ids.light] },
      kinds: { name: 'str', lights: 'ids' },
      required: ['name', 'lights'],
      strict: true,
    },
    {
      method: 'PUT',
      path: '/light/group',
      body: { _id: ids.group, name: 'G', lights: [ids.light] },
      kinds: { _id: 'id', name: 'str', lights: 'ids' },
      required: ['_id'],
      strict: true,
    },
    {
      method: 'PUT',
      path: '/light/group/toggle',
      body: { _id: ids.group },
      kinds: { _id: 'id' },
      required: ['_id'],
      strict: false,
    },
    {
      method: 'POST',
      path: '/scene',
      body: { name: 'S', state: entry() },
      kinds: { name: 'str', state: 'entries' },
      required: ['name', 'state'],
      strict: true,
    },
    {
      method: 'PUT',
      path: '/scene',
      body: { _id: ids.scene, name: 'S', state: entry() },
      kinds: { _id: 'id', name: 'str', state: 'entries' },
      required: ['_id'],
      strict: true,
    },
    {
      method: 'PUT',
      path: '/scene/apply',
      body: { _id: ids.scene },
      kinds: { _id: 'id' },
      required: ['_id'],
      strict: false,
    },
    {
      method: 'POST',
      path: '/sensor',
      body: { name: 'B', vendor: 'test', testid: 'b2', type: 'button', events: ['1'] },
      kinds: { name: 'str', vendor: 'vendor', testid: 'str', type: 'str', events: 'names' },
      required: ['name', 'vendor', 'testid', 'type'],
      strict: true,
    },
    {
      method: 'PUT',
      path: '/sensor',
      body: { _id: ids.sensor, name: 'B', type: 'button', events: ['1'] },
      kinds: { _id: 'id', name: 'str', type: 'str', events: 'names' },
      required: ['_id'],
      strict: true,
    },
    {
      method: 'POST',
      path: '/sensor/action',
      body: { _id: ids.sensor, event: '2', action: { type: 'light', _id: ids.light, on: true, bri: 3 } },
      kinds: { _id: 'id', event: 'str', action: 'action' },
      required: ['_id', 'event', 'action'],
      strict: true,
    },
    {
      method: 'POST',
      path: '/sensor/event',
      body: { _id: ids.sensor, event: '1' },
      kinds: { _id: 'id', event: 'str' },
      required: ['_id', 'event'],
      strict: true,
    },
  ];
}

const configFile = () => readFile(path.join(h.t.dataDir, 'lighting.config.json'), 'utf8');
const errorLogs = () => h.t.logs.filter((l) => (l.level as number) >= 50);

/** The answer must be a 4xx whose body is exactly `{message}` with a non-empty message. */
function expectRefusal(res: { status: number; body: Json }, what: string): void {
  expect(res.status, what).toBeGreaterThanOrEqual(400);
  expect(res.status, what).toBeLessThan(500);
  expect(Object.keys(res.body ?? {}), what).toEqual(['message']);
  expect(typeof res.body.message === 'string' && res.body.message.length > 0, what).toBe(true);
}

describe('bad input on every body-taking route', () => {
  it('answers each wrong field, missing field, malformed or non-object body with 4xx {message} and stores nothing', async () => {
    const siteBefore = (await h.call('GET', '')).body;
    const storedBefore = await configFile();
    const commandsBefore = h.driver.commands.length;
    const errorsBefore = errorLogs().length;
    let sent = 0;
    for (const route of routes()) {
      const label = `${route.method} ${route.path || '/'}`;
      for (const [field, kind] of Object.entries(route.kinds)) {
        for (const value of WRONG[kind]) {
          const what = `${label} ${field}=${JSON.stringify(value)}`;
          const res = await h.call(route.method, route.path, { ...route.body, [field]: value });
          expectRefusal(res, what);
          // "says what is wrong": the message names the field, or the id it could not find.
          if (kind !== 'entries' && kind !== 'action')
            expect(res.body.message, what).toMatch(new RegExp(`${field}|ghost`));
          sent++;
        }
      }
      for (const field of route.required) {
        const { [field]: _left, ...without } = route.body;
        const res = await h.call(route.method, route.path, without);
        expectRefusal(res, `${label} without ${field}`);
        expect(res.body.message).toContain(field);
      }
      for (const raw of ['{"_id": ', '[]', '"text"', 'null', '42', '{"__proto__": {"x": 1}}']) {
        expectRefusal(await h.call(route.method, route.path, raw), `${label} body ${raw}`);
      }
      if (route.strict) {
        const res = await h.call(route.method, route.path, { ...route.body, colour: 'red' });
        expectRefusal(res, `${label} colour`);
        expect(res.body.message).toBe('unknown field colour');
      }
      const text = await request(h.api + route.path, route.method, 'x', { 'content-type': 'text/plain' });
      expect(text.status, `${label} text/plain`).toBe(415);
      expect(text.body).toEqual({ message: 'Content-Type must be application/json' });
      const none = await request(h.api + route.path, route.method);
      expect(none.status, `${label} no body`).toBe(400);
      expect(Object.keys(none.body)).toEqual(['message']);
    }
    expect(sent).toBeGreaterThan(200);
    expect((await h.call('GET', '')).body).toEqual(siteBefore);
    expect(await configFile()).toBe(storedBefore);
    expect(h.driver.commands.length).toBe(commandsBefore);
    expect(errorLogs().slice(errorsBefore)).toEqual([]);
  });

  it('answers unknown ids in paths with 404 {message} naming the id, and stores nothing', async () => {
    const storedBefore = await configFile();
    for (const [method, p] of [
      ['DELETE', '/light/ghost'],
      ['DELETE', '/light/group/ghost'],
      ['DELETE', '/scene/ghost'],
      ['DELETE', '/sensor/ghost'],
      ['DELETE', `/sensor/${ids.sensor}/action/ghost`],
      ['DELETE', `/sensor/ghost/action/${ids.action}`],
      ['PUT', '/scene/ghost/apply'],
    ] as const) {
      const res = await h.call(method, p);
      expect(res.status, `${method} ${p}`).toBe(404);
      expect(res.body, `${method} ${p}`).toEqual({ message: expect.stringContaining('ghost') });
    }
    expect(await configFile()).toBe(storedBefore);
  });

  it('answers every route with the same 404 {message} for a wrong or unknown site key', async () => {
    const wrong = `${h.t.url}/api/site/${h.sitekey.slice(0, -1)}${h.sitekey.endsWith('A') ? 'B' : 'A'}`;
    const unknown = `${h.t.url}/api/site/${'Z'.repeat(24)}`;
    for (const route of [...routes(), { method: 'GET', path: '/light', body: undefined }]) {
      for (const base of [wrong, unknown]) {
        const res = await request(base + route.path, route.method, route.body);
        expect({ status: res.status, body: res.body }, `${route.method} ${route.path}`).toEqual({
          status: 404,
          body: { message: 'unknown site' },
        });
      }
    }
  });
});

describe('bad input on the admin routes', () => {
  it('answers 4xx {message} and leaves the sites as they were', async () => {
    const sitesBefore = (await h.t.admin('GET', '/admin/sites')).body;
    const configBefore = await configFile();
    const send = (method: string, p: string, body?: string, type = 'application/json') =>
      request(new URL(p, h.t.adminUrl).href, method, body, {
        authorization: `Bearer ${h.t.adminKey}`,
        ...(body === undefined ? {} : { 'content-type': type }),
      });
    const cases: Array<[string, string, string | undefined, number]> = [
      ['POST', '/admin/sites', '{"name": ', 400],
      ['POST', '/admin/sites', '[]', 400],
      ['POST', '/admin/sites', '{"name": 5}', 400],
      ['POST', '/admin/sites', '{"name": "   "}', 400],
      ['POST', '/admin/sites', JSON.stringify({ name: 'x'.repeat(101) }), 400],
      ['POST', '/admin/sites', undefined, 400],
      ['PATCH', `/admin/sites/${h.siteid}`, '{"name": null}', 400],
      ['PATCH', '/admin/sites/ghost', '{"name": "x"}', 404],
      ['POST', '/admin/sites/ghost/rotate-key', undefined, 404],
      ['DELETE', '/admin/sites/ghost', undefined, 404],
      ['GET', '/admin/sites/ghost', undefined, 404],
    ];
    for (const [method, p, body, status] of cases) {
      const res = await send(method, p, body);
      expect(res.status, `${method} ${p} ${body}`).toBe(status);
      // The admin listener keeps the core's error shape `{error, message}` (every plugin's admin routes do).
      expect(res.body, `${method} ${p} ${body}`).toMatchObject({ message: expect.any(String) });
    }
    const text = await send('POST', '/admin/sites', 'name=x', 'text/plain');
    expect(text).toMatchObject({
      status: 415,
      body: { message: 'Content-Type must be application/json' },
    });
    expect((await h.t.admin('GET', '/admin/sites')).body).toEqual(sitesBefore);
    expect(await configFile()).toBe(configBefore);
  });
});
