/**
 * `npm run soak`: memory under a steady load, about ten times a busy home, for `SOAK_MINUTES` (default 60),
 * on loopback only. The built hub runs in its own process exactly as systemd starts it; this process plays
 * 50 zigbee2mqtt bulbs (one bridge client that confirms every command), 10 buttons publishing 50 messages
 * a second between them, 10 light commands a second on the site API, and 5 WebSocket clients of the site.
 * Prints the hub's RSS every minute and, at the end, whether it stayed within 10 % of the tenth minute's
 * figure (a hub whose memory levels off). Exit code 0 either way: this is a measurement, not a test.
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import mqtt from 'mqtt';
import WebSocket from 'ws';
import { spawnBuiltHub } from './lib/spawn-hub.ts';

const root = path.resolve(import.meta.dirname, '..');
const MINUTES = Number(process.env.SOAK_MINUTES ?? 60);
const LIGHTS = 50;
const BUTTONS = 10;
const COMMANDS_PER_S = 10;
const SENSOR_MSGS_PER_S = 50;
const SOCKETS = 5;
const ADMIN_KEY = 'soak-admin-key-0123456789abcdef';

const rssMb = (pid: number): number =>
  Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 102.4) / 10;

async function startHub(
  dataDir: string,
): Promise<{ child: ChildProcess; main: string; admin: string; mqttPort: number; sitekey: string }> {
  // The site's web UI line ends the banner.
  const hub = await spawnBuiltHub({
    dataDir,
    logLevel: process.env.HEARTH_LOG_LEVEL ?? 'info',
    adminKey: ADMIN_KEY,
    until: /\/site\/\S+/,
  });
  try {
    return {
      child: hub.child,
      main: hub.find(/main\s+(http:\S+)/),
      admin: hub.find(/admin\s+(http:\S+)/),
      mqttPort: Number(hub.find(/mqtt\s+mqtt:\/\/.*?:(\d+)/)),
      sitekey: hub.find(/\/site\/([\w-]+)/),
    };
  } catch (err) {
    await hub.stop();
    throw err;
  }
}

async function call(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300)
    throw new Error(`${method} ${new URL(url).pathname}: ${res.status} ${text.slice(0, 200)}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

async function main(): Promise<void> {
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-soak-'));
  const hub = await startHub(dataDir);
  const timers: NodeJS.Timeout[] = [];
  const clients: Array<{ end(force?: boolean): unknown }> = [];
  try {
    const admin = (m: string, p: string, b?: unknown) =>
      call(m, `${hub.admin}${p}`, b, { authorization: `Bearer ${ADMIN_KEY}` });
    const site = (m: string, p: string, b?: unknown) => call(m, `${hub.main}/api/site/${hub.sitekey}${p}`, b);
    const sites = (await admin('GET', '/admin/sites')) as unknown as
      | Array<{ siteid: string }>
      | { sites: Array<{ siteid: string }> };
    const siteid = (Array.isArray(sites) ? sites : sites.sites)[0]?.siteid;
    const cred = await admin('POST', '/admin/mqtt/credentials', {
      username: 'z2m',
      site: siteid,
      topics: ['zigbee2mqtt/#'],
    });

    const lights: string[] = [];
    for (let i = 0; i < LIGHTS; i++) {
      const light = await site('POST', '/light', {
        name: `Bulb ${i}`,
        type: 'dimmable',
        vendor: 'mqtt',
        mqttid: `zigbee2mqtt:bulb${i}`,
      });
      lights.push(light._id as string);
    }
    for (let i = 0; i < BUTTONS; i++) {
      await admin('POST', '/admin/mqtt/devices', {
        mqttid: `zigbee2mqtt:button${i}`,
        site: siteid,
        kind: 'sensor',
      });
      await site('POST', '/sensor', {
        name: `Button ${i}`,
        vendor: 'mqtt',
        mqttid: `zigbee2mqtt:button${i}`,
        type: 'button',
        events: [],
      });
    }

    const bridge = await mqtt.connectAsync(`mqtt://127.0.0.1:${hub.mqttPort}`, {
      username: 'z2m',
      password: cred.password as string,
    });
    clients.push(bridge);
    bridge.on('message', (topic, payload) => bridge.publish(topic.slice(0, -'/set'.length), payload)); // the bulb confirms
    await bridge.subscribeAsync('zigbee2mqtt/+/set');

    const wsMessages = { count: 0 };
    for (let i = 0; i < SOCKETS; i++) {
      const ws = new WebSocket(`${hub.main.replace('http', 'ws')}/api/site/${hub.sitekey}/ws`);
      ws.on('message', () => wsMessages.count++);
      ws.on('error', () => undefined);
      clients.push({ end: () => ws.close() });
    }

    let commands = 0;
    let errors = 0;
    let sensorMessages = 0;
    timers.push(
      setInterval(() => {
        const i = commands++;
        site('PUT', '/light/state', { _id: lights[i % LIGHTS], on: i % 7 !== 0, bri: 1 + (i % 254) }).catch(
          () => errors++,
        );
      }, 1000 / COMMANDS_PER_S),
      setInterval(() => {
        // Five messages every 100 ms: 50 a second across the buttons.
        for (let k = 0; k < SENSOR_MSGS_PER_S / 10; k++) {
          const n = sensorMessages++;
          bridge.publish(
            `zigbee2mqtt/button${n % BUTTONS}`,
            JSON.stringify({ action: 'single', battery: 90, linkquality: 100 + (n % 50) }),
          );
        }
      }, 100),
    );

    const figures: number[] = [];
    console.log(
      `soak: ${MINUTES} min, ${LIGHTS} MQTT lights, ${COMMANDS_PER_S} commands/s, ${SENSOR_MSGS_PER_S} sensor messages/s, ${SOCKETS} WebSocket clients; hub pid ${hub.child.pid}`,
    );
    console.log(`minute 0: RSS ${rssMb(hub.child.pid as number)} MB`);
    for (let minute = 1; minute <= MINUTES; minute++) {
      await new Promise((r) => setTimeout(r, 60_000));
      if (hub.child.exitCode !== null) throw new Error(`the hub exited (${hub.child.exitCode})`);
      const rss = rssMb(hub.child.pid as number);
      figures.push(rss);
      console.log(
        `minute ${minute}: RSS ${rss} MB; ${commands} commands (${errors} errors), ${sensorMessages} sensor messages, ${wsMessages.count} WebSocket messages received`,
      );
    }
    const tenth = figures[Math.min(9, figures.length - 1)] as number;
    const last = figures.at(-1) as number;
    const within = Math.abs(last - tenth) <= tenth * 0.1;
    console.log(
      `end: RSS ${last} MB against ${tenth} MB at minute ${Math.min(10, figures.length)} (${((100 * (last - tenth)) / tenth).toFixed(1)} %): ${within ? 'within' : 'NOT within'} 10 %; max ${Math.max(...figures)} MB`,
    );
  } finally {
    for (const t of timers) clearInterval(t);
    for (const c of clients) c.end(true);
    hub.child.kill('SIGTERM');
    await new Promise((r) => hub.child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
