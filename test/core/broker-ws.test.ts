import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MqttClient } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import type { BrokerService } from '../../core/mqtt/types.ts';
import {
  connect,
  deferred,
  nextMessage,
  refusalCode,
  startEmbedded,
  type TestBroker,
} from './broker-fixtures.ts';

let running: TestBroker | undefined;
let server: http.Server | undefined;
const clients: MqttClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.endAsync(true)));
  await running?.broker.stop();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  running = undefined;
  server = undefined;
});

/** What the core's WebSocket hub does for `/mqtt`: accept the upgrade and hand the socket to the broker. */
async function serveMqttOverWs(broker: BrokerService): Promise<string> {
  server = http.createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ server, path: '/mqtt' });
  wss.on('connection', (socket) => broker.handleWebSocket(socket));
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `ws://127.0.0.1:${(server.address() as AddressInfo).port}/mqtt`;
}

describe('embedded broker: MQTT over WebSocket', () => {
  it('a browser-style mqtt.js client over ws:// publishes and subscribes', async () => {
    running = await startEmbedded({ enabled: false });
    const wsUrl = await serveMqttOverWs(running.broker);
    const c = await connect(wsUrl);
    clients.push(c);

    const fromWs = deferred<string>();
    await running.broker.forOwner('p').subscribe('ui/cmd', (m) => fromWs.resolve(m.payload.toString()));
    await c.publishAsync('ui/cmd', 'toggle');
    expect(await fromWs.promise).toBe('toggle');

    await c.subscribeAsync('ui/state');
    const toWs = nextMessage(c, 'ui/state');
    await running.broker.forOwner('p').publish('ui/state', 'on');
    expect((await toWs).payload).toBe('on');
  });

  it('bridges WebSocket and TCP clients', async () => {
    running = await startEmbedded();
    const wsUrl = await serveMqttOverWs(running.broker);
    const ws = await connect(wsUrl);
    const tcp = await connect(running.url);
    clients.push(ws, tcp);
    await tcp.subscribeAsync('bridge/t');
    const got = nextMessage(tcp, 'bridge/t');
    await ws.publishAsync('bridge/t', 'from ws', { qos: 1 });
    expect((await got).payload).toBe('from ws');
  });

  it('applies the same authentication hooks to WebSocket clients', async () => {
    running = await startEmbedded({ allowAnonymous: false });
    running.broker.forOwner('auth').hooks({
      authenticate: (_c, username, password) =>
        username === 'ui' && password?.toString() === 'pw' ? { allow: true } : { allow: false },
    });
    const wsUrl = await serveMqttOverWs(running.broker);
    expect(await refusalCode(wsUrl, { username: 'ui', password: 'nope' })).toBe(4);
    const ok = await connect(wsUrl, { username: 'ui', password: 'pw' });
    clients.push(ok);
    expect(ok.connected).toBe(true);
  });

  it('anonymous on: credentials are still checked over WebSocket (CONNACK 4, never anonymous)', async () => {
    running = await startEmbedded({ allowAnonymous: true });
    running.broker.forOwner('auth').hooks({
      authenticate: (_c, username) => (username === 'ui' ? { allow: true } : 'pass'),
    });
    const wsUrl = await serveMqttOverWs(running.broker);
    expect(await refusalCode(wsUrl, { username: 'stranger', password: 'x' })).toBe(4);
    const anon = await connect(wsUrl);
    clients.push(anon);
    expect(anon.connected).toBe(true);
  });

  it('MQTT 5 clients are refused with "unacceptable protocol version" over TCP and WebSocket (aedes 1.x)', async () => {
    running = await startEmbedded({ allowAnonymous: true });
    const wsUrl = await serveMqttOverWs(running.broker);
    for (const url of [running.url, wsUrl]) {
      const err = await connect(url, { protocolVersion: 5 }).then(
        async (c) => {
          await c.endAsync(true);
          return null;
        },
        (e: unknown) => e as { code?: number },
      );
      // A 3.1.1 CONNACK with return code 1, read by mqtt.js as MQTT 5's reason code 1.
      expect(err?.code, url).toBe(1);
    }
  });

  it('stop() closes WebSocket clients too', async () => {
    running = await startEmbedded();
    const wsUrl = await serveMqttOverWs(running.broker);
    const c = await connect(wsUrl);
    clients.push(c);
    const gone = new Promise<void>((resolve) => c.once('close', () => resolve()));
    await running.broker.stop();
    await gone;
  });
});
