/**
 * `npm run demo`: the hub with its real plugins plus simulated MQTT devices — a Tasmota bulb, a
 * zigbee2mqtt bridge with a colour bulb and a wall switch, and a Shelly Plus 1 relay — real mqtt.js
 * clients speaking the real profiles over the hub's broker. The demo provisions everything itself (device
 * credentials, devices, lights, a sensor with actions) in a throw-away data directory, presses the wall
 * switch now and then, and prints the web UI URL. A second site, "Hue", is served by a simulated Hue bridge
 * (three lights, a room, a scene and a dimmer switch) paired through the admin API; its dimmer switch's
 * buttons are bound to Hearth actions. A simulated Zigbee stick (a Z-Stack coordinator on a socat PTY pair)
 * is commissioned at start and its devices (colour bulb, dimmable bulb, plug, remote, motion sensor) join
 * Home as new lights and sensors. Ctrl+C stops it.
 *
 * Env: HEARTH_DEMO_PORT (web port, default 8080; 0 = any free port), HEARTH_DEMO_MQTT_PORT (default any),
 * HEARTH_DEMO_PRESS_MS (wall switch period, default 8000), HEARTH_DEMO_LOG (log level, default error).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadAll } from '../core/cli/boot.ts';
import { Hub } from '../core/hub.ts';
import { startEzspSimulator } from './simulators/ezsp-ncp/index.ts';
import { ids as hueIds, SimulatedBridge } from './simulators/hue-bridge/bridge.ts';
import { startShellyRelay } from './simulators/shelly-relay.ts';
import { startTasmotaBulb } from './simulators/tasmota-bulb.ts';
import { startZigbee2mqtt } from './simulators/zigbee2mqtt.ts';
import { startZnpSimulator } from './simulators/znp-coordinator/index.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-demo-'));
const adminKey = randomBytes(24).toString('base64url');
const printed: string[] = [];
// HEARTH_DEMO_ZIGBEE=ezsp: a simulated Silicon Labs (EmberZNet) stick instead of the Z-Stack one.
const zigbeeKind = process.env.HEARTH_DEMO_ZIGBEE === 'ezsp' ? 'ezsp' : 'znp';
const znp =
  zigbeeKind === 'ezsp'
    ? await startEzspSimulator({ blank: true, autoJoin: true })
    : await startZnpSimulator({ blank: true, autoJoin: true });
const { config, plugins } = await loadAll({
  overrides: {
    dataDir,
    log: { level: process.env.HEARTH_DEMO_LOG ?? 'error' },
    http: {
      main: { port: Number(process.env.HEARTH_DEMO_PORT ?? 8080) },
      admin: { host: '127.0.0.1', port: 0 },
    },
    mqtt: { port: Number(process.env.HEARTH_DEMO_MQTT_PORT ?? 0) },
    plugins: {
      translation: { enabled: false },
      auth: { port: 0 },
      lighting: { createHomeSite: true },
      zigbee: { path: znp.path, site: 'Home' },
    },
  },
});
const hub = new Hub({ config, plugins, adminKey, print: (l) => printed.push(l) });
const info = await hub.start();
const mqttUrl = `mqtt://127.0.0.1:${info.mqttPort}`;
const uiLine = printed.find((l) => l.includes('/site/')) ?? '';
const uiUrl = uiLine.slice(uiLine.indexOf('http'));
const sitekey = uiUrl.slice(uiUrl.lastIndexOf('/') + 1);
const mainUrl = info.urls.main as string;

async function call(base: string, method: string, p: string, body?: unknown, auth = false) {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(auth ? { authorization: `Bearer ${adminKey}` } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 400) throw new Error(`${method} ${p}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}
const admin = (method: string, p: string, body?: unknown) =>
  call(info.urls.admin as string, method, p, body, true);
const site = (method: string, p: string, body?: unknown) =>
  call(`${mainUrl}/api/site/${sitekey}`, method, p, body);
const credential = async (username: string, topics: string[]) =>
  (await admin('POST', '/admin/mqtt/credentials', { username, site: 'Home', topics })).password as string;

// Devices, each with its own credential limited to its own topics.
const tasmota = await startTasmotaBulb({
  url: mqttUrl,
  topic: 'tasmota_kitchen',
  username: 'tasmota-kitchen',
  password: await credential('tasmota-kitchen', [
    'cmnd/tasmota_kitchen/#',
    'stat/tasmota_kitchen/#',
    'tele/tasmota_kitchen/#',
  ]),
});
const z2m = await startZigbee2mqtt({
  url: mqttUrl,
  username: 'zigbee2mqtt',
  password: await credential('zigbee2mqtt', ['zigbee2mqtt/#']),
  devices: [
    { name: 'Living room', type: 'colour' },
    { name: 'Wall switch', type: 'switch' },
  ],
});
const shelly = await startShellyRelay({
  url: mqttUrl,
  prefix: 'shellyplus1-demo',
  username: 'shelly-porch',
  password: await credential('shelly-porch', ['shellyplus1-demo/#']),
});

// The zigbee2mqtt devices arrive by discovery and become a light and a sensor of the site by themselves
// (marked new); Tasmota and Shelly are registered by the operator, and their lights added below.
await admin('POST', '/admin/mqtt/devices', {
  mqttid: 'tasmota:tasmota_kitchen',
  site: 'Home',
  name: 'Kitchen',
});
await admin('POST', '/admin/mqtt/devices', {
  mqttid: 'shelly2:shellyplus1-demo:switch:0',
  site: 'Home',
  name: 'Porch',
});
async function discovered(what: '/light' | '/sensor', mqttid: string): Promise<{ _id: string }> {
  for (let i = 0; i < 500; i++) {
    const found = ((await site('GET', what)) as Array<{ _id: string; mqttid?: string }>).find(
      (x) => x.mqttid === mqttid,
    );
    if (found) return found;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${mqttid} was not discovered`);
}
const kitchen = await site('POST', '/light', {
  name: 'Kitchen',
  type: 'dimmable',
  vendor: 'mqtt',
  mqttid: 'tasmota:tasmota_kitchen',
});
const living = await discovered('/light', 'zigbee2mqtt:Living room');
const porch = await site('POST', '/light', {
  name: 'Porch',
  type: 'binary',
  vendor: 'mqtt',
  mqttid: 'shelly2:shellyplus1-demo:switch:0',
});
const ids: string[] = [kitchen._id, living._id, porch._id];
const evening = await site('POST', '/scene', {
  name: 'Evening',
  state: [
    { _id: ids[0], on: true, bri: 90 },
    { _id: ids[1], on: true, bri: 160, kelvin: 2700 },
    { _id: ids[2], on: true, bri: 255 },
  ],
});
const off = await site('POST', '/scene', {
  name: 'All off',
  state: ids.map((_id) => ({ _id, on: false, bri: 0 })),
});
await site('POST', '/light/group', { name: 'Downstairs', lights: ids.slice(0, 2) });
const wall = await discovered('/sensor', 'zigbee2mqtt:Wall switch');
await site('POST', '/sensor/action', {
  _id: wall._id,
  event: 'on',
  action: { type: 'scene', _id: evening._id },
});
await site('POST', '/sensor/action', {
  _id: wall._id,
  event: 'off',
  action: { type: 'scene', _id: off._id },
});

// A simulated Hue bridge on its own site: paired like a real one (the link button is "pressed" first).
const bridge = await SimulatedBridge.start({ lights: 3 });
const hueSite = (await admin('POST', '/admin/sites', { name: 'Hue' })) as { sitekey: string; url: string };
bridge.pressLinkButton();
await admin('POST', '/admin/hue/bridges', { host: bridge.host, port: bridge.port, site: 'Hue' });
const hue = (method: string, p: string, body?: unknown) =>
  call(`${mainUrl}/api/site/${hueSite.sitekey}`, method, p, body);
const hueLights: string[] = [];
for (const n of [1, 2, 3]) {
  const l = await hue('POST', '/light', {
    name: `Hue ${n}`,
    type: 'dimmable',
    vendor: 'hue',
    hueid: hueIds.light(n),
    // the simulated bridge's bulbs are colour bulbs (gamut C, 153–500 mirek)
    capabilities: { ct: { min: 153, max: 500 }, xy: {} },
  });
  hueLights.push(l._id);
}
await hue('POST', '/light', {
  name: 'Living room (Hue room)',
  type: 'dimmable',
  vendor: 'hue',
  hueid: `grouped_light/${hueIds.roomGroup}`,
});
const dimmer = await hue('POST', '/sensor', {
  name: 'Hue dimmer switch',
  vendor: 'hue',
  hueid: hueIds.dimmer,
  type: 'switch',
});
for (const [event, on] of [
  ['1_short_release', true],
  ['4_short_release', false],
] as const) {
  for (const _id of hueLights) {
    await hue('POST', '/sensor/action', {
      _id: dimmer._id,
      event,
      // "on" brings the bulbs to a warm white (sensor actions carry colour like PUT /light/state)
      action: on ? { type: 'light', _id, on, bri: 200, kelvin: 2700 } : { type: 'light', _id, on, bri: 0 },
    });
  }
}

// Open the Zigbee network: the simulated devices join and become new lights and sensors of Home.
await admin('POST', '/admin/zigbee/permit-join', { seconds: 120 });

console.log(
  'Hearth demo is running (simulated devices: Tasmota bulb, zigbee2mqtt colour bulb + wall switch, Shelly relay).',
);
console.log(`  web UI:      ${uiUrl}`);
console.log(
  `  devices:     ${uiUrl.replace('/site/', '/mqtt/site/')}  (discovered devices, new ones marked)`,
);
console.log(
  `  MQTT broker: ${mqttUrl}  (try: mosquitto_sub -h 127.0.0.1 -p ${info.mqttPort} -u demo -P ${sitekey} -t 'hearth/#' -v)`,
);
console.log(
  `  Hue site:    ${hueSite.url}  (a simulated Hue bridge at https://${bridge.host}:${bridge.port}; its dimmer switch is pressed with the wall switch: on = button 1, off = button 4)`,
);
console.log(
  `  zigbee:      simulated ${zigbeeKind === 'ezsp' ? 'Silicon Labs (EZSP)' : 'Z-Stack'} stick on ${znp.path} (colour bulb, dimmable bulb, plug, remote, motion sensor join as new devices)`,
);
console.log(`  admin API:   ${info.urls.admin}  (Authorization: Bearer ${adminKey})`);
console.log(
  `  The wall switch is pressed every ${Number(process.env.HEARTH_DEMO_PRESS_MS ?? 8000) / 1000} s (on / off). Ctrl+C stops the demo and deletes its data.`,
);

let pressOn = true;
const presser = setInterval(
  () => {
    // A press cut short by Ctrl+C is not an error worth a stack trace.
    z2m.press('Wall switch', pressOn ? 'on' : 'off').catch(() => {});
    bridge.pressButton(pressOn ? 1 : 4, 'short_release');
    pressOn = !pressOn;
  },
  Number(process.env.HEARTH_DEMO_PRESS_MS ?? 8000),
);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  clearInterval(presser);
  await Promise.allSettled([tasmota.stop(), z2m.stop(), shelly.stop(), bridge.stop()]);
  await hub.stop();
  await znp.stop();
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
}
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
if (process.env.HEARTH_DEMO_EXIT_AFTER_MS)
  setTimeout(() => void stop(), Number(process.env.HEARTH_DEMO_EXIT_AFTER_MS));
