/**
 * `npm run demo` as a newcomer runs it: the process prints the web UI URL, the simulated wall switch's
 * presses switch the simulated bulbs through the hub (visible on the site API), and SIGTERM stops it.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import { BUILD_TIMEOUT, buildReady, built } from '../helpers/built.ts';
import { eventually, type Json } from './hub.ts';

// This file's tests start children from the run's build: wait for it here, not inside a test.
beforeAll(buildReady, BUILD_TIMEOUT);

const root = fileURLToPath(new URL('../../', import.meta.url));

it('npm run demo: lights appear, the wall switch works, the web UI is served', async () => {
  const child = spawn(process.execPath, [await built('scripts/demo.ts')], {
    cwd: root,
    env: { ...process.env, HEARTH_DEMO_PORT: '0', HEARTH_DEMO_PRESS_MS: '1500' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    // The demo script from this run's build (test/helpers/built.ts); the bound is for a loaded machine.
    const ui = await eventually(() => /web UI:\s+(\S+)/.exec(out)?.[1], 'the web UI line', 45_000);
    const page = await fetch(ui.replace(/\/\/[^:/]+:/, '//127.0.0.1:'));
    expect(page.status).toBe(200);
    const api = ui.replace(/\/\/[^:/]+:/, '//127.0.0.1:').replace('/site/', '/api/site/');
    // The MQTT lights; the simulated Zigbee devices join the same site as new lights meanwhile.
    const mqttLights = async () =>
      ((await (await fetch(`${api}/light`)).json()) as Json[]).filter((l) => l.vendor === 'mqtt');
    const lights = await mqttLights();
    expect(lights.map((l) => l.name).sort()).toEqual(['Kitchen', 'Living room', 'Porch']);
    // The "on" press applies the Evening scene: every simulated device confirms its level.
    const lit = await eventually(
      async () => {
        const now = await mqttLights();
        return now.every((l) => l.on) ? now : undefined;
      },
      'the Evening scene from a wall switch press',
      15_000,
    );
    expect(Object.fromEntries(lit.map((l) => [l.name, l.bri]))).toEqual({
      Kitchen: 89,
      'Living room': 160,
      Porch: 255,
    });
    // the colour bulb shows the scene's 2700 K
    expect(lit.find((l) => l.name === 'Living room')).toMatchObject({ ct: 370, colormode: 'ct' });
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
}, 90_000);
