/**
 * `npm run bench:hue`: the hue driver against the simulated bridge on loopback (TLS, the bridge's own
 * limits on). Prints command → bridge latency p50/p99 on an idle bridge, and the time to switch 40 lights
 * off one by one under the rate limit next to the limit's theoretical minimum (the first command at once,
 * then one every 100 ms), plus the same as one room command. Figures only, no pass/fail.
 */
import pino from 'pino';
import { createHueDriver } from '../../drivers/hue/driver.ts';
import { GROUP_PREFIX } from '../../drivers/hue/mapping.ts';
import type { DriverSink } from '../../drivers/lighting/index.ts';
import { ids, SimulatedBridge } from '../simulators/hue-bridge/bridge.ts';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 60);
const LIGHTS = 40;
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
const ms = (n: number) => `${n.toFixed(1)} ms`;
const sleep = (n: number) => new Promise((r) => setTimeout(r, n));

const bridge = await SimulatedBridge.start({ lights: LIGHTS });
const sink: DriverSink = {
  reportState() {},
  reportSensorEvent() {},
  reportConnection() {},
  reportDevices() {},
};
const driver = createHueDriver({
  id: 'bench',
  options: {
    host: bridge.host,
    port: bridge.port,
    bridgeId: bridge.bridgeId,
    appKey: bridge.addKey(),
    roots: [bridge.certs.rootPem],
  },
  sink,
  log: pino({ level: 'silent' }),
  signal: new AbortController().signal,
});
await driver.start();

// Idle bridge: one command at a time, spaced wider than the limiter's 100 ms so it never waits.
const latencies: number[] = [];
for (let i = 0; i < SAMPLES; i++) {
  const n = (i % LIGHTS) + 1;
  const before = bridge.stats.arrivals.length;
  const t0 = performance.now();
  await driver.setState(ids.light(n), { on: true, bri: 100 + (i % 100) });
  const arrival = bridge.stats.arrivals[before];
  if (arrival) latencies.push(arrival.at - t0);
  await sleep(120);
}
latencies.sort((a, b) => a - b);

await sleep(1100); // a fresh budget
const allOff = async () => {
  const before = bridge.stats.arrivals.length;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: LIGHTS }, (_, i) => driver.setState(ids.light(i + 1), { on: false, bri: 0 })),
  );
  const done = performance.now() - t0;
  const last = (bridge.stats.arrivals.at(-1)?.at ?? t0) - t0;
  return { done, last, sent: bridge.stats.arrivals.length - before };
};
const off = await allOff();
const offOk = Array.from({ length: LIGHTS }, (_, i) => bridge.light(i + 1)).every(
  (l) => (l.on as { on: boolean }).on === false,
);
await sleep(1100);
const g0 = performance.now();
await driver.setState(GROUP_PREFIX + ids.roomGroup, { on: false, bri: 0 });
const group = performance.now() - g0;

console.log('hue driver → simulated bridge (loopback, TLS, bridge limits enforced)');
console.log(
  `  command → bridge latency, idle (${latencies.length} commands): p50 ${ms(pct(latencies, 50))}, p99 ${ms(pct(latencies, 99))}`,
);
console.log(
  `  all ${LIGHTS} lights off, one command each: ${ms(off.done)} until the bridge took the last (${off.sent} commands, every light off: ${offOk})`,
);
console.log(`    theoretical minimum at 10 light commands/s: ${ms((LIGHTS - 1) * 100)} + one request`);
console.log(`  the same room off as one grouped_light command: ${ms(group)}`);
console.log(
  `  refused by the bridge with 429: ${bridge.stats.tooMany}; most requests in flight: ${bridge.stats.maxInFlight}`,
);
await driver.stop();
await bridge.stop();
