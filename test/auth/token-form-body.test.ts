import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthHub, adminClient, siteResourceUri, startAuthHub } from './helpers.ts';

/**
 * The token endpoint reads a form that came with its headers straight from the stream's buffer, and any
 * other body as a stream: every way a client may send the body gives the same token answer.
 */
let h: AuthHub;
let head: (extra: string) => string;
let body: string;

/** One raw HTTP/1.1 exchange: the parts written with a pause between them; the answer's status and JSON. */
async function exchange(parts: string[]): Promise<{ status: number; json: Record<string, unknown> }> {
  const { hostname, port } = new URL(h.auth);
  const socket = net.connect(Number(port), hostname);
  await new Promise((r) => socket.once('connect', r));
  let raw = '';
  socket.on('data', (c: Buffer) => {
    raw += c.toString('utf8');
  });
  const ended = new Promise((r) => socket.once('end', r));
  for (const [i, part] of parts.entries()) {
    if (i > 0) await sleep(30);
    socket.write(part);
  }
  await ended;
  const [headers = '', payload = ''] = raw.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d+)/.exec(headers)?.[1]);
  const chunked = /transfer-encoding: chunked/i.test(headers);
  const text = chunked
    ? payload
        .split('\r\n')
        .filter((_, i) => i % 2 === 1)
        .join('')
    : payload;
  return { status, json: JSON.parse(text) as Record<string, unknown> };
}

beforeAll(async () => {
  h = await startAuthHub();
  const site = await siteResourceUri(h);
  const c = await adminClient(h, { scope: 'lights:read' });
  body = `grant_type=client_credentials&resource=${encodeURIComponent(site)}`;
  const basic = Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64');
  head = (extra) =>
    `POST /oauth/token HTTP/1.1\r\nHost: ${new URL(h.auth).host}\r\nAuthorization: Basic ${basic}\r\n` +
    `Content-Type: application/x-www-form-urlencoded\r\nConnection: close\r\n${extra}\r\n`;
});
afterAll(() => h?.stop());

describe('token request body', () => {
  it('in the packet of its headers', async () => {
    const r = await exchange([`${head(`Content-Length: ${body.length}\r\n`)}${body}`]);
    expect(r.status).toBe(200);
    expect(r.json.token_type).toBe('Bearer');
  });

  it('after its headers, in two late packets', async () => {
    const half = Math.floor(body.length / 2);
    const r = await exchange([
      head(`Content-Length: ${body.length}\r\n`),
      body.slice(0, half),
      body.slice(half),
    ]);
    expect(r.status).toBe(200);
    expect(r.json.token_type).toBe('Bearer');
  });

  it('chunked, one chunk with the headers and one later', async () => {
    const half = Math.floor(body.length / 2);
    const chunk = (s: string) => `${s.length.toString(16)}\r\n${s}\r\n`;
    const r = await exchange([
      `${head('Transfer-Encoding: chunked\r\n')}${chunk(body.slice(0, half))}`,
      `${chunk(body.slice(half))}0\r\n\r\n`,
    ]);
    expect(r.status).toBe(200);
    expect(r.json.token_type).toBe('Bearer');
  });

  it('empty: invalid_request, not a hang', async () => {
    const r = await exchange([head('Content-Length: 0\r\n')]);
    expect(r.status).toBe(400);
    expect(r.json.error).toBe('invalid_request');
  });
});
