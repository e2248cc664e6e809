/**
 * Reconnection to an external broker backs off: the wait between attempts doubles from
 * `reconnectMinMs` up to `reconnectMaxMs`, and starts again from the minimum after a successful
 * connection (regression: the first retry after a reconnection used to wait the last, longest period).
 * A TCP gate in front of a real aedes refuses connections on demand and records when each attempt came.
 */
import { createServer, type Socket, connect as tcpConnect } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { type RestartableBroker, startAedes, within } from './fixtures.ts';
import { type DriverRig, startDriver } from './sink.ts';

interface Gate {
  url: string;
  /** When each refused connection attempt arrived (performance.now()). */
  refused: number[];
  open(): void;
  /** Refuses new connections and drops the open ones; returns when it did. */
  shut(): number;
  stop(): Promise<void>;
}

async function startGate(target: number): Promise<Gate> {
  let open = true;
  const piped = new Set<Socket>();
  const refused: number[] = [];
  const srv = createServer((s) => {
    if (!open) {
      refused.push(performance.now());
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
  return {
    url: `mqtt://127.0.0.1:${port}`,
    refused,
    open: () => {
      open = true;
    },
    shut() {
      open = false;
      const at = performance.now();
      for (const s of piped) s.destroy();
      return at;
    },
    stop: () => new Promise<void>((r) => srv.close(() => r())),
  };
}

let broker: RestartableBroker | null = null;
let gate: Gate | null = null;
let rig: DriverRig | null = null;
afterEach(async () => {
  await rig?.stop();
  gate?.shut();
  await gate?.stop();
  await broker?.stop();
  rig = gate = broker = null;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const gaps = (from: number, times: number[]) => times.map((t, i) => t - (i === 0 ? from : times[i - 1]!));

it('waits longer after each failed attempt, up to the maximum, and starts short again after a connection', async () => {
  broker = await startAedes();
  gate = await startGate(broker.port);
  const g = gate;
  rig = await startDriver(g.url, {
    broker: { url: g.url, reconnectMinMs: 50, reconnectMaxMs: 500 },
    devices: [{ protocolid: 'tasmota:gate' }],
  });
  expect(rig.driver.connection().connected).toBe(true);

  // Outage: 50, 100, 200, 400, 500, 500 … ms between attempts; without the cap the fifth wait would be
  // 800. Timers never fire early and load only adds, so the bounds below leave room on one side only.
  const down = g.shut();
  await sleep(2500);
  const outage = gaps(down, [...g.refused]);
  expect(outage.length, `attempts ${outage.map(Math.round).join(', ')}`).toBeGreaterThanOrEqual(4);
  expect(outage.at(-1)!, `gaps ${outage.map(Math.round).join(', ')}`).toBeGreaterThanOrEqual(400);
  expect(Math.max(...outage), `gaps ${outage.map(Math.round).join(', ')}`).toBeLessThan(750);

  // Back: the link comes up at the next attempt.
  const from = rig.sink.reports.length;
  g.open();
  await within(
    rig.sink.waitFor((r) => r.kind === 'connection' && r.status.connected, from),
    'the link back up',
  );

  // A new outage retries after the minimum again, not after the last (500 ms) wait.
  g.refused.length = 0;
  const again = g.shut();
  await within(
    (async () => {
      while (g.refused.length === 0) await sleep(5);
    })(),
    'a retry',
  );
  expect(g.refused[0]! - again).toBeLessThan(350);
}, 20_000);
