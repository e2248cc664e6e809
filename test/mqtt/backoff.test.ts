/**
 * Reconnection to an external broker backs off: the wait between attempts doubles from
 * `reconnectMinMs` up to `reconnectMaxMs`, and starts again from the minimum after a successful
 * connection (regression: the first retry after a reconnection used to wait the last, longest period).
 * A TCP gate in front of a real aedes refuses connections on demand; the link's timers run on vitest's
 * fake clock, so each wait is read off the clock exactly and the test never sleeps. Sockets stay real: each
 * step waits for the link's own "disconnected" report before moving the clock on.
 */
import { createServer, type Socket, connect as tcpConnect } from 'node:net';
import pino from 'pino';
import { afterEach, expect, it, vi } from 'vitest';
import { externalLink } from '../../drivers/mqtt/external-link.ts';
import type { MqttLink } from '../../drivers/mqtt/link.ts';
import { type RestartableBroker, startAedes } from './fixtures.ts';

interface Gate {
  url: string;
  /** How many connection attempts it refused. */
  refused: number;
  open(): void;
  /** Refuses new connections and drops the open ones. */
  shut(): void;
  stop(): Promise<void>;
}

async function startGate(target: number): Promise<Gate> {
  let open = true;
  const piped = new Set<Socket>();
  const srv = createServer((s) => {
    if (!open) {
      gate.refused++;
      s.destroy();
      return;
    }
    const up = tcpConnect(target, '127.0.0.1');
    s.pipe(up).pipe(s);
    const drop = () => {
      s.destroy();
      up.destroy();
      piped.delete(s);
    };
    s.on('error', drop).on('close', drop);
    up.on('error', drop).on('close', drop);
    piped.add(s);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  const gate: Gate = {
    url: `mqtt://127.0.0.1:${port}`,
    refused: 0,
    open: () => {
      open = true;
    },
    shut() {
      open = false;
      for (const s of piped) s.destroy();
    },
    stop: () => new Promise<void>((r) => srv.close(() => r())),
  };
  return gate;
}

let broker: RestartableBroker | null = null;
let gate: Gate | null = null;
let link: MqttLink | null = null;
afterEach(async () => {
  vi.useRealTimers();
  await link?.stop();
  gate?.shut();
  await gate?.stop();
  await broker?.stop();
  link = gate = broker = null;
});

/** The link's connection reports, in order, with a way to wait for the next one. */
function statusOf(l: MqttLink) {
  const seen: boolean[] = [];
  const waiting: Array<{ up: boolean; resolve: () => void }> = [];
  l.onStatus((up) => {
    seen.push(up);
    for (const w of waiting.splice(0)) {
      if (w.up === up) w.resolve();
      else waiting.push(w);
    }
  });
  return {
    seen,
    next: (up: boolean) => new Promise<void>((resolve) => waiting.push({ up, resolve })),
  };
}

/** Moves the fake clock to the link's next timer (the pending retry) and returns how far it moved. */
async function waitOfNextRetry(): Promise<number> {
  // First what is due now (mqtt.js tears a closed connection's store down on a 0 ms timer).
  await vi.advanceTimersByTimeAsync(0);
  const before = Date.now();
  await vi.advanceTimersToNextTimerAsync();
  return Date.now() - before;
}

it('waits longer after each failed attempt, up to the maximum, and starts short again after a connection', async () => {
  broker = await startAedes();
  const g = await startGate(broker.port);
  gate = g;
  const l = externalLink({ url: g.url, reconnectMinMs: 50, reconnectMaxMs: 500 }, pino({ level: 'silent' }));
  link = l;
  const status = statusOf(l);
  const up = status.next(true);
  await l.start();
  await up;
  // From here on, the link's timers (mqtt.js's retry interval, its CONNACK timeout) are fake.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });

  // Outage: each refused attempt closes the link, which arms the next retry; without the cap the fifth
  // wait would be 800.
  let down = status.next(false);
  g.shut();
  await down;
  const waits: number[] = [];
  for (let attempt = 1; attempt <= 6; attempt++) {
    down = status.next(false);
    waits.push(await waitOfNextRetry());
    await down; // the gate refused the attempt and the link saw it close
    expect(g.refused).toBe(attempt);
  }
  expect(waits).toEqual([50, 100, 200, 400, 500, 500]);

  // Back: the link comes up at the next attempt, after the same capped wait.
  g.open();
  const back = status.next(true);
  expect(await waitOfNextRetry()).toBe(500);
  await back;
  expect(l.connected).toBe(true);

  // A new outage retries after the minimum again, not after the last (500 ms) wait.
  down = status.next(false);
  g.shut();
  await down;
  down = status.next(false);
  expect(await waitOfNextRetry()).toBe(50);
  await down;
  expect(g.refused).toBe(7);
});
