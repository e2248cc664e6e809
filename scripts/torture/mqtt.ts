/**
 * The embedded broker under abuse: malformed packets, a CONNECT announcing 200 MB, 500 connections and a
 * subscriber that never reads, while a wall switch keeps switching a bulb through the hub (zigbee2mqtt
 * devices on real mqtt.js clients: press → sensor action → lighting → driver → `…/set` to the bulb).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import mqtt, { type MqttClient } from 'mqtt';
import { type HubProcess, startHub, workDir } from './hub.ts';
import { closedWithin, connect, malformed, rawSocket, subscribe, varint } from './mqtt-raw.ts';
import { fail, mb, newResult, type PartResult, pct, sleep } from './report.ts';

const LEVELS = [26, 51, 77, 102, 128, 153, 179, 204, 230, 255];

interface Path {
  /** Presses the switch `n` times, one at a time; latencies in ms and presses that never reached the bulb. */
  presses(n: number): Promise<{ ms: number[]; lost: number }>;
  close(): Promise<void>;
}

async function credential(h: HubProcess, username: string, site: string, topics?: string[]): Promise<string> {
  const res = await h.admin('POST', '/admin/mqtt/credentials', {
    username,
    site,
    ...(topics ? { topics } : {}),
  });
  if (res.status !== 201) throw new Error(`credential ${username}: ${res.status} ${res.text}`);
  return res.body.password;
}

export async function switchToBulb(h: HubProcess, siteid: string, sitekey: string): Promise<Path> {
  const url = `mqtt://127.0.0.1:${h.mqttPort}`;
  const bulb = await mqtt.connectAsync(url, {
    username: 'bulb',
    password: await credential(h, 'bulb', siteid, ['zigbee2mqtt/desk', 'zigbee2mqtt/desk/#']),
    reconnectPeriod: 0,
  });
  const wall = await mqtt.connectAsync(url, {
    username: 'wall',
    password: await credential(h, 'wall', siteid, ['zigbee2mqtt/wall', 'zigbee2mqtt/wall/#']),
    reconnectPeriod: 0,
  });
  await h.admin('POST', '/admin/mqtt/devices', { mqttid: 'zigbee2mqtt:wall', site: siteid, kind: 'sensor' });
  const api = `/api/site/${sitekey}`;
  const light = await h.call('main', 'POST', `${api}/light`, {
    name: 'Desk',
    type: 'dimmable',
    vendor: 'mqtt',
    mqttid: 'zigbee2mqtt:desk',
  });
  const sensor = await h.call('main', 'POST', `${api}/sensor`, {
    name: 'Wall',
    vendor: 'mqtt',
    mqttid: 'zigbee2mqtt:wall',
    type: 'button',
    events: [],
  });
  if (light.status !== 201 || sensor.status !== 201)
    throw new Error(`path setup: ${light.text} ${sensor.text}`);
  for (const [i, bri] of LEVELS.entries()) {
    await h.call('main', 'POST', `${api}/sensor/action`, {
      _id: sensor.body._id,
      event: `p${i}`,
      action: { type: 'light', _id: light.body._id, on: true, bri },
    });
  }
  let waiting: { level: number; resolve: () => void } | null = null;
  bulb.on('message', (_t, payload) => {
    let b: number | undefined;
    try {
      b = (JSON.parse(payload.toString()) as { brightness?: number }).brightness;
    } catch {}
    bulb.publish('zigbee2mqtt/desk', payload);
    if (waiting && b === waiting.level) waiting.resolve();
  });
  await bulb.subscribeAsync('zigbee2mqtt/desk/set');
  let n = 0;
  return {
    async presses(count) {
      const ms: number[] = [];
      let lost = 0;
      for (let k = 0; k < count; k++) {
        const i = n++ % LEVELS.length;
        const level = Math.round(((LEVELS[i] as number) * 254) / 255);
        const t0 = performance.now();
        const arrived = new Promise<boolean>((resolve) => {
          const t = setTimeout(() => resolve(false), 3000);
          waiting = {
            level,
            resolve: () => {
              clearTimeout(t);
              resolve(true);
            },
          };
        });
        wall.publish('zigbee2mqtt/wall', JSON.stringify({ action: `p${i}` }));
        if (await arrived) ms.push(performance.now() - t0);
        else lost += 1;
        waiting = null;
        await sleep(20);
      }
      return { ms, lost };
    },
    async close() {
      await Promise.all([bulb.endAsync(), wall.endAsync()]);
    },
  };
}

const lat = (x: { ms: number[]; lost: number }) =>
  `p50 ${pct(x.ms, 50).toFixed(1)} ms, p99 ${pct(x.ms, 99).toFixed(1)} ms${x.lost ? `, ${x.lost} lost` : ''}`;

export async function run({ budgetMs }: { budgetMs: number }): Promise<PartResult> {
  const r = newResult('MQTT abuse');
  void budgetMs;
  const dir = workDir('mqtt');
  const h = await startHub({
    dataDir: path.join(dir, 'data'),
    logFile: path.join(dir, 'hub.log'),
    config: { log: { level: 'error' } },
  });
  const site = await h.admin('POST', '/admin/sites', { name: 'Abuse' });
  const { siteid, sitekey } = site.body as { siteid: string; sitekey: string };
  const p = await switchToBulb(h, siteid, sitekey);
  await p.presses(5);
  const base = await p.presses(30);
  r.figures.push(`switch → bulb idle: ${lat(base)}`);
  const alive = (when: string) => {
    if (!h.alive()) {
      fail(r, 'broker died', when);
      return false;
    }
    return true;
  };

  // 1. Malformed packets, each on its own connection: the socket is closed, nothing else happens. (A
  // truncated packet may wait for the rest until the connect timeout.)
  const open = await Promise.all(
    malformed().map(async (m) => {
      r.trials += 1;
      const s = await rawSocket(h.mqttPort);
      s.on('error', () => {});
      s.write(m.bytes);
      const closed = await closedWithin(s, 10_000);
      s.destroy();
      return closed || m.label.startsWith('truncated') ? [] : [m.label];
    }),
  );
  if (open.flat().length) fail(r, 'malformed packet left the connection open', open.flat().join('; '));
  for (let i = 0; i < 200; i++) {
    r.trials += 1;
    const s = await rawSocket(h.mqttPort);
    s.on('error', () => {});
    s.end(randomBytes(1 + Math.floor(Math.random() * 4000)));
    await closedWithin(s, 500);
    s.destroy();
  }
  if (!alive('after malformed packets')) return r;
  const afterMalformed = await p.presses(10);
  if (afterMalformed.lost > 0) fail(r, 'switch → bulb broken after malformed packets', lat(afterMalformed));

  // 2. Three connections each announcing a 200 MB CONNECT and sending as fast as the hub reads.
  const memBefore = await h.mem();
  const announced = 200 * 1024 * 1024;
  const sent = await Promise.all(
    [0, 1, 2].map(async () => {
      r.trials += 1;
      const s = await rawSocket(h.mqttPort);
      s.on('error', () => {});
      let total = 0;
      s.write(Buffer.concat([Buffer.from([0x10]), varint(announced)]));
      const chunk = Buffer.alloc(256 * 1024, 0x41);
      while (total < 80 * 1024 * 1024 && !s.destroyed) {
        const more = s.write(chunk);
        total += chunk.length;
        if (!more) {
          const drained = await Promise.race([
            new Promise((res) => s.once('drain', () => res(true))),
            sleep(3000).then(() => false),
          ]);
          if (!drained) break;
        }
      }
      return { s, total, closed: s.destroyed || s.closed };
    }),
  );
  await sleep(500);
  const memHeld = await h.mem();
  for (const x of sent) {
    if (x.total >= 64 * 1024 * 1024 && !x.s.destroyed)
      fail(
        r,
        'oversized CONNECT buffered',
        `${mb(x.total)} of a 200 MB CONNECT accepted before authentication`,
      );
    x.s.destroy();
  }
  await sleep(500);
  const memAfter = await h.mem();
  const heldMb = (memHeld.rss - memBefore.rss) / 1048576;
  if (heldMb > 30)
    fail(r, 'oversized CONNECT memory', `RSS +${heldMb.toFixed(0)} MB while three 200 MB CONNECTs were open`);
  if ((memAfter.rss - memBefore.rss) / 1048576 > 30)
    fail(
      r,
      'oversized CONNECT memory kept',
      `RSS ${mb(memBefore.rss)} → ${mb(memAfter.rss)} after they closed`,
    );
  r.figures.push(
    `200 MB CONNECT: ${sent.map((x) => mb(x.total)).join(', ')} sent before the hub ${sent.every((x) => x.closed) ? 'closed' : 'stopped reading'}; RSS ${mb(memBefore.rss)} → ${mb(memHeld.rss)} held → ${mb(memAfter.rss)}`,
  );
  if (!alive('after oversized packets')) return r;

  // 3. 500 connections logged in with the site key (plus the path's own two), then the path again.
  const url = `mqtt://127.0.0.1:${h.mqttPort}`;
  const clients: MqttClient[] = [];
  const t0 = performance.now();
  let refused = 0;
  for (let i = 0; i < 500; i += 50) {
    const batch = await Promise.allSettled(
      Array.from({ length: 50 }, (_, k) =>
        mqtt.connectAsync(url, {
          username: `many-${i + k}`,
          password: sitekey,
          reconnectPeriod: 0,
          connectTimeout: 15_000,
        }),
      ),
    );
    for (const b of batch) {
      r.trials += 1;
      if (b.status === 'fulfilled') clients.push(b.value);
      else refused += 1;
    }
  }
  const connectMs = performance.now() - t0;
  if (refused > 0) fail(r, '500 connections', `${refused} of 500 refused`);
  const memMany = await h.mem();
  const withMany = await p.presses(20);
  if (withMany.lost > 0) fail(r, 'switch → bulb with 500 connections', lat(withMany));
  r.figures.push(
    `500 connections in ${(connectMs / 1000).toFixed(1)} s, RSS ${mb(memMany.rss)}; switch → bulb then: ${lat(withMany)}`,
  );
  await Promise.all(clients.map((c) => c.endAsync(true)));
  if (!alive('after 500 connections')) return r;

  // 4. A subscriber that never reads, on every topic of the site, while a device floods and the switch works.
  const flooder = await mqtt.connectAsync(url, {
    username: 'flood',
    password: await credential(h, 'flood', siteid, ['zigbee2mqtt/flood']),
    reconnectPeriod: 0,
  });
  const payload = Buffer.alloc(1024, 0x42);
  let floodAcked = 0;
  let flooding = true;
  const flood = (async () => {
    while (flooding) {
      await Promise.all(
        Array.from({ length: 50 }, () =>
          flooder.publishAsync('zigbee2mqtt/flood', payload, { qos: 1 }).then(() => floodAcked++),
        ),
      );
    }
  })().catch(() => {});
  const rateOver = async (ms: number) => {
    const n0 = floodAcked;
    const t0 = performance.now();
    await sleep(ms);
    return (floodAcked - n0) / ((performance.now() - t0) / 1000);
  };
  const rateAlone = await rateOver(3000);
  const stuck = await rawSocket(h.mqttPort);
  stuck.on('error', () => {});
  const stuckPw = await credential(h, 'stuck', siteid);
  stuck.write(connect('stuck', 'stuck', stuckPw));
  stuck.write(subscribe(1, ['zigbee2mqtt/#', `hearth/${siteid}/#`], 1));
  await sleep(300);
  stuck.pause();
  // Long enough for the socket buffers between the hub and the stuck client to fill.
  await rateOver(5000);
  const n0 = floodAcked;
  const t0s = performance.now();
  const stuckPresses = await p.presses(30);
  const rateStuck = (floodAcked - n0) / ((performance.now() - t0s) / 1000);
  flooding = false;
  await Promise.race([flood, sleep(5000)]);
  const memStuck = await h.mem();
  r.trials += 31;
  if (stuckPresses.lost > 0 || pct(stuckPresses.ms, 99) > Math.max(250, 5 * pct(base.ms, 99)))
    fail(r, 'stuck subscriber slows switch → bulb', `${lat(stuckPresses)} (idle ${lat(base)})`);
  if (rateStuck < rateAlone / 2)
    fail(
      r,
      'stuck subscriber throttles publishers',
      `a device's 1 KB QoS 1 messages: ${rateAlone.toFixed(0)} msg/s alone, ${rateStuck.toFixed(0)} msg/s with a stuck subscriber`,
    );
  r.figures.push(
    `stuck subscriber: switch → bulb ${lat(stuckPresses)}; flood ${rateAlone.toFixed(0)} → ${rateStuck.toFixed(0)} msg/s (1 KB, QoS 1); RSS ${mb(memStuck.rss)}; stuck socket ${stuck.destroyed ? 'closed by the hub' : 'still open'}`,
  );
  stuck.destroy();
  await flooder.endAsync(true);
  await p.close();
  alive('at the end');
  await h.stop();
  return r;
}
