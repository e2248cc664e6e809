import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { definePlugin } from '../../core/plugin/types.ts';
import type { HearthSocket } from '../../core/ws/types.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';

const sockets: HearthSocket[] = [];

const wsPlugin = definePlugin({
  name: 'wsprobe',
  version: '1.0.0',
  description: 'test plugin: a WebSocket route',
  configSchema: { type: 'object', properties: {} },
  async start(ctx) {
    ctx.ws.route<{ key: string }>({
      path: '/t/:key/ws',
      authenticate: (_req, params) => (params.key === 'good' ? { key: params.key } : null),
      onConnection(socket, auth) {
        sockets.push(socket);
        socket.sendJson({ hello: auth.key });
        socket.raw.on('message', (m) => socket.sendJson({ echo: JSON.parse(m.toString()) }));
      },
    });
    const r = ctx.http.router('main');
    r.post('/flood', (k) => {
      const big = 'x'.repeat(64 * 1024);
      let sent = 0;
      const target = sockets[sockets.length - 1];
      while (target && sent < 5000 && target.sendJson({ big })) sent++;
      k.body = { sent };
    });
    return { stop() {} };
  },
});

describe('WebSocket hub', () => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub({ extraPlugins: [wsPlugin] });
  });
  afterAll(() => t.stop());

  const wsUrl = (p: string) => `${t.url.replace('http', 'ws')}${p}`;

  it('routes by path, passes the identity, and carries messages both ways', async () => {
    const ws = new WebSocket(wsUrl('/t/good/ws'));
    const msgs: unknown[] = [];
    ws.on('message', (m) => msgs.push(JSON.parse(m.toString())));
    await new Promise((r) => ws.once('open', r));
    ws.send(JSON.stringify({ ping: 1 }));
    await expect.poll(() => msgs.length).toBe(2);
    expect(msgs).toEqual([{ hello: 'good' }, { echo: { ping: 1 } }]);
    ws.close();
  });

  it('refuses a rejected identity and an unknown path with 404', async () => {
    // A malformed escape in a path parameter is an unknown path too, not a 400 with an error log.
    for (const p of ['/t/bad/ws', '/nowhere', '/t/%E0%A4%A/ws']) {
      const ws = new WebSocket(wsUrl(p));
      const status = await new Promise<number | undefined>((resolve) => {
        ws.once('unexpected-response', (_req, res) => resolve(res.statusCode));
        ws.once('open', () => resolve(101));
      });
      expect(status).toBe(404);
    }
  });

  it('drops a client that stops reading instead of buffering without bound', async () => {
    const port = Number(new URL(t.url).port);
    const sock = net.connect(port, '127.0.0.1');
    await new Promise((r) => sock.once('connect', r));
    sock.write(
      'GET /t/good/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
    );
    await new Promise((r) => sock.once('data', r));
    sock.pause(); // a phone that went to sleep
    const closed = new Promise((r) => sock.once('close', r));
    const res = await fetch(`${t.url}/flood`, { method: 'POST' });
    const { sent } = (await res.json()) as { sent: number };
    expect(sent).toBeLessThan(5000);
    sock.resume();
    await closed;
  });
});
