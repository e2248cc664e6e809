/**
 * `npm run demo` serves a second site from a simulated Hue bridge: its lights, its room, and a dimmer
 * switch whose presses switch the Hue lights through Hearth's actions (visible on the site API).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import { BUILD_TIMEOUT, buildReady, built } from '../helpers/built.ts';

// This file's tests start children from the run's build: wait for it here, not inside a test.
beforeAll(buildReady, BUILD_TIMEOUT);

const root = fileURLToPath(new URL('../../', import.meta.url));
type Json = Record<string, unknown>;

async function eventually<T>(
  fn: () => Promise<T | undefined> | T | undefined,
  what: string,
  ms: number,
): Promise<T> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const v = await fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

it('npm run demo: the Hue site lists the bridge lights and the dimmer switch switches them', async () => {
  const child = spawn(process.execPath, [await built('scripts/demo.ts')], {
    cwd: root,
    env: { ...process.env, HEARTH_DEMO_PORT: '0', HEARTH_DEMO_PRESS_MS: '1000' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const ui = await eventually(() => /Hue site:\s+(\S+)/.exec(out)?.[1], 'the Hue site line', 45_000);
    const api = ui.replace(/\/\/[^:/]+:/, '//127.0.0.1:').replace('/site/', '/api/site/');
    const lights = (await (await fetch(`${api}/light`)).json()) as Json[];
    expect(lights.map((l) => l.name).sort()).toEqual(['Hue 1', 'Hue 2', 'Hue 3', 'Living room (Hue room)']);
    // Button 1 switches the three lights on, button 4 off: both states show up on the site API.
    for (const want of [true, false]) {
      await eventually(
        async () => {
          const now = (await (await fetch(`${api}/light`)).json()) as Json[];
          return (
            now.filter((l) => String(l.name).startsWith('Hue ')).every((l) => l.on === want) || undefined
          );
        },
        `the Hue lights ${want ? 'on' : 'off'}`,
        20_000,
      );
    }
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
}, 90_000);
