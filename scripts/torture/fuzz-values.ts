/** fast-check arbitraries for hostile requests: prototype names, huge and deep values, wrong types, bad bytes. */
import { deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';

export const PROTO_NAMES = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  '__defineGetter__',
] as const;

/** Field names the plugins read from bodies and queries, so generated objects reach past the first check. */
export const FIELD_NAMES = [
  '_id',
  'name',
  'type',
  'vendor',
  'virtualid',
  'mqttid',
  'siteid',
  'on',
  'bri',
  'state',
  'lights',
  'events',
  'event',
  'action',
  'label',
  'key_id',
  'characters',
  'email',
  'password',
  'role',
  'client_name',
  'redirect_uris',
  'grant_types',
  'response_types',
  'token_endpoint_auth_method',
  'scope',
  'resources',
  'agent',
  'agent_description',
  'client_id',
  'client_secret',
  'grant_type',
  'resource',
  'code',
  'code_verifier',
  'refresh_token',
  'token',
  'mode',
  'approved_redirects',
  'username',
  'site',
  'topics',
  'kind',
  'profile',
  'address',
  'ha',
  'new',
  'text',
  'target_lang',
  'source_lang',
  'tag_handling',
  'slug',
  'uri',
  'display_name',
  'backend_kind',
  'url',
  'force',
  'limit',
  'offset',
  'status',
  'driver',
  'subdef',
  'redirect_uri',
  'code_challenge',
  'code_challenge_method',
  'response_type',
  'session_id',
  'csrf_token',
  'scopes',
  'usage_limits',
  'speech_to_text_milliseconds',
  'context',
  'formality',
  'glossary_id',
];

const hugeString = fc.constantFrom(
  'x'.repeat(100_000),
  'é'.repeat(50_000),
  '\u0000'.repeat(1000),
  '\ud800'.repeat(100),
);
const weirdString = fc.oneof(
  fc.constantFrom(...PROTO_NAMES),
  fc.constantFrom(
    '',
    ' ',
    '..',
    '../..',
    '%',
    '%00',
    '%ff',
    'a/b',
    '#',
    '+',
    '$SYS',
    '\n',
    'null',
    'true',
    '0',
    '-1',
    '1e999',
  ),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);
const weirdNumber = fc.oneof(
  fc.constantFrom(0, -0, -1, 1e308, -1e308, 2 ** 53, 2 ** 53 + 2, 0.5, 255, 256, 65536),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** A deeply nested value (arrays or objects), built without recursion. */
export function deep(depth: number, object: boolean): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = object ? { a: v } : [v];
  return v;
}

/** Any JSON-able value, biased to what breaks code: prototype names, wrong types, huge and deep values. */
export const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    weirdString,
    weirdNumber,
    fc.boolean(),
    fc.constant(null),
    hugeString,
    fc.constantFrom(200, 2000).chain((d) => fc.constantFrom(deep(d, false), deep(d, true))),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(
      fc.oneof(fc.constantFrom(...FIELD_NAMES, ...PROTO_NAMES), fc.string({ maxLength: 8 })),
      tie('v'),
      {
        maxKeys: 5,
      },
    ),
  ),
})).v;

/** A JSON object body: known fields and prototype names as keys, hostile values. */
export const hostileObject = fc.dictionary(
  fc.oneof(fc.constantFrom(...FIELD_NAMES), fc.constantFrom(...PROTO_NAMES), fc.string({ maxLength: 10 })),
  hostileValue,
  { maxKeys: 8 },
);

/** A valid body with one field replaced, removed, or a prototype key added. */
export function mutated(seed: Record<string, unknown>): fc.Arbitrary<unknown> {
  const keys = Object.keys(seed);
  return fc.oneof(
    fc
      .record({ k: fc.constantFrom(...(keys.length ? keys : ['x'])), v: hostileValue })
      .map(({ k, v }) => ({ ...seed, [k]: v })),
    fc.constantFrom(...(keys.length ? keys : ['x'])).map((k) => {
      const { [k]: _, ...rest } = seed;
      return rest;
    }),
    fc.record({ k: fc.constantFrom(...PROTO_NAMES), v: hostileValue }).map(({ k, v }) => {
      const out: Record<string, unknown> = { ...seed };
      Object.defineProperty(out, k, { value: v, enumerable: true, configurable: true, writable: true });
      return out;
    }),
    fc.constant(seed),
  );
}

export interface RawBody {
  bytes: Buffer;
  headers: Record<string, string>;
  label: string;
}

const json = (v: unknown) => Buffer.from(JSON.stringify(v) ?? 'null');

/** Bodies that are wrong as bytes: bad encodings, wrong content types, oversized, malformed. */
export function rawBodies(valid: unknown): fc.Arbitrary<RawBody> {
  const good = json(valid);
  const ct = { 'content-type': 'application/json' };
  const items: RawBody[] = [
    {
      label: 'invalid UTF-8 in JSON',
      bytes: Buffer.concat([
        Buffer.from('{"name":"'),
        Buffer.from([0xff, 0xfe, 0xc3, 0x28]),
        Buffer.from('"}'),
      ]),
      headers: ct,
    },
    { label: 'lone continuation bytes', bytes: Buffer.from([0x7b, 0x80, 0x81, 0x7d]), headers: ct },
    {
      label: 'gzip garbage',
      bytes: Buffer.from('not gzip at all'),
      headers: { ...ct, 'content-encoding': 'gzip' },
    },
    {
      label: 'deflate garbage',
      bytes: Buffer.from('not deflate'),
      headers: { ...ct, 'content-encoding': 'deflate' },
    },
    {
      label: 'br garbage',
      bytes: Buffer.from('not brotli \u00ff'),
      headers: { ...ct, 'content-encoding': 'br' },
    },
    { label: 'unknown encoding', bytes: good, headers: { ...ct, 'content-encoding': 'x-hearth' } },
    { label: 'gzip of valid JSON', bytes: gzipSync(good), headers: { ...ct, 'content-encoding': 'gzip' } },
    {
      label: 'deflate of valid JSON',
      bytes: deflateSync(good),
      headers: { ...ct, 'content-encoding': 'deflate' },
    },
    {
      label: 'gzip bomb (50 MB of zeros)',
      bytes: gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20)),
      headers: { ...ct, 'content-encoding': 'gzip' },
    },
    { label: 'truncated JSON', bytes: good.subarray(0, Math.max(1, good.length - 2)), headers: ct },
    { label: 'JSON as text/plain', bytes: good, headers: { 'content-type': 'text/plain' } },
    { label: 'JSON as XML', bytes: good, headers: { 'content-type': 'application/xml' } },
    { label: 'multipart without boundary', bytes: good, headers: { 'content-type': 'multipart/form-data' } },
    { label: 'no content type', bytes: good, headers: {} },
    { label: 'bad charset', bytes: good, headers: { 'content-type': 'application/json; charset=x-unknown' } },
    {
      label: 'utf-16 JSON',
      bytes: Buffer.from(JSON.stringify(valid) ?? 'null', 'utf16le'),
      headers: { 'content-type': 'application/json; charset=utf-16' },
    },
    {
      label: 'form with prototype keys',
      bytes: Buffer.from('__proto__[x]=1&constructor[prototype][y]=2&name=a&hasOwnProperty=3&toString=4'),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    },
    {
      label: 'JSON with __proto__ key',
      bytes: Buffer.from('{"__proto__":{"polluted":1},"constructor":{"prototype":{"p":1}},"name":"x"}'),
      headers: ct,
    },
    { label: 'bare scalar JSON', bytes: Buffer.from('3'), headers: ct },
    {
      label: 'deep array (100k)',
      bytes: Buffer.from(`${'['.repeat(100_000)}${']'.repeat(100_000)}`),
      headers: ct,
    },
    {
      label: 'over body limit (2 MB)',
      bytes: Buffer.from(`{"name":"${'x'.repeat(2 * 1024 * 1024)}"}`),
      headers: ct,
    },
    { label: 'duplicate keys', bytes: Buffer.from('{"name":"a","name":{"x":1}}'), headers: ct },
    { label: 'content-length with no body', bytes: Buffer.alloc(0), headers: ct },
  ];
  return fc.constantFrom(...items);
}

/** A path segment value: a real id most of the time, else something hostile. */
export function segment(real: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...(real.length ? real : ['x'])) },
    { weight: 3, arbitrary: fc.constantFrom(...PROTO_NAMES) },
    {
      weight: 2,
      arbitrary: fc.oneof(
        fc.constantFrom(
          '',
          '%',
          '%ff',
          '%2F',
          '%2e%2e',
          '..',
          'a%00b',
          '%F0%9F%92%A9',
          'x'.repeat(5000),
          '-',
          '%25',
        ),
        fc.string({ maxLength: 30 }).map(encodeURIComponent),
      ),
    },
  );
}

export const queryString = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom(
          ...PROTO_NAMES,
          'force',
          'limit',
          'offset',
          'site',
          'status',
          'source',
          'page',
          'redirect',
          'session_id',
          'client_id',
          'resource',
          'scope',
          'secret',
        ),
        fc.string({ maxLength: 6 }),
      ),
      fc.oneof(
        fc.constantFrom(...PROTO_NAMES, 'true', '-1', '1e9', '', '%ff', 'x'.repeat(3000)),
        fc.string({ maxLength: 10 }),
      ),
    ),
    { maxLength: 4 },
  )
  .map((pairs) =>
    pairs
      .map(([k, v]) => `${encodeURIComponent(k)}=${v.startsWith('%') ? v : encodeURIComponent(v)}`)
      .join('&'),
  );
