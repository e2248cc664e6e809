/**
 * The hue plugin in a real hub against the simulated bridge: pairing through the admin API (link button,
 * timeout, pinned certificate), the key kept secret, lights switched from the site API, a change made in
 * the Hue app reaching the site API, and a Hue dimmer switch button running a Hearth action.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hueCommands } from '../../plugins/hue/commands.ts';
import { dataFileTexts } from '../helpers/data-files.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';
import { ids, SimulatedBridge } from './helpers.ts';

let hub: TestHub | null = null;
let bridge: SimulatedBridge | null = null;
afterEach(async () => {
  await hub?.stop();
  await bridge?.stop();
  hub = null;
  bridge = null;
});

async function eventually<T>(fn: () => Promise<T | undefined> | T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const v = await fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function start() {
  bridge = await SimulatedBridge.start({ coalesceMs: 50 });
  hub = await startTestHub({
    plugins: ['lighting', 'hue'],
    config: { plugins: { hue: { pairingTimeoutMs: 1000 } } },
  });
  const line = hub.printed.find((l) => l.includes('/site/')) ?? '';
  const sitekey = line.slice(line.lastIndexOf('/') + 1);
  const h = hub;
  const site = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${h.url}/api/site/${sitekey}${p}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  return { hub: h, bridge, site };
}

describe('hue plugin', () => {
  it('pairs a bridge once its link button is pressed, pins its certificate and keeps the key secret', async () => {
    const { hub, bridge } = await start();
    const pair = { host: bridge.host, port: bridge.port, site: 'Home' };
    const early = await hub.admin('POST', '/admin/hue/bridges', pair);
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ error: 'link_button_not_pressed' });

    bridge.pressLinkButton();
    const paired = await hub.admin('POST', '/admin/hue/bridges', pair);
    expect(paired.status).toBe(201);
    expect(paired.body).toMatchObject({
      bridgeId: bridge.bridgeId,
      trust: 'pinned',
      fingerprint256: bridge.certs.fingerprint256,
    });

    const appKey = bridge.keys().at(-1) as string;
    expect(appKey).toMatch(/^[0-9a-f]{40}$/);
    // Kept by the secrets facility, encrypted: in no data file in plain text.
    for (const f of dataFileTexts(hub.dataDir)) expect(f.text, f.name).not.toContain(appKey);
    const list = await eventually(async () => {
      const l = await hub.admin('GET', '/admin/hue/bridges');
      return (l.body as Array<{ connected: boolean }>)[0]?.connected ? l : undefined;
    }, 'the bridge to connect');
    for (const answer of [paired, list]) expect(JSON.stringify(answer.body)).not.toContain(appKey);
    expect(JSON.stringify(hub.logs)).not.toContain(appKey);
    expect(readFileSync(path.join(hub.dataDir, 'hue.bridges.json'), 'utf8')).not.toContain(appKey);
  });

  it('refuses bad pairing requests with 4xx and a message', async () => {
    const { hub } = await start();
    for (const [body, status] of [
      [{ host: 'https://x/y', site: 'Home' }, 400],
      [{ host: '127.0.0.1', port: 0, site: 'Home' }, 400],
      [{ host: '127.0.0.1', site: 'Nowhere' }, 404],
      [{ host: '127.0.0.1', site: 'Home', bridgeId: 'xyz' }, 400],
      [{ host: '127.0.0.1', site: 'Home', extra: 1 }, 400],
    ] as const) {
      const res = await hub.admin('POST', '/admin/hue/bridges', body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body).toMatchObject({ message: expect.any(String) });
    }
    // Nobody listening: the bridge is unreachable, not a server error.
    const res = await hub.admin('POST', '/admin/hue/bridges', { host: '127.0.0.1', port: 1, site: 'Home' });
    expect(res.status).toBe(502);
  });

  it('lights follow the site API, the Hue app reaches the site API, a Hue button runs an action', async () => {
    const { hub, bridge, site } = await start();
    bridge.pressLinkButton();
    expect(
      (await hub.admin('POST', '/admin/hue/bridges', { host: bridge.host, port: bridge.port, site: 'Home' }))
        .status,
    ).toBe(201);
    const light = await site('POST', '/light', {
      name: 'Sofa',
      type: 'dimmable',
      vendor: 'hue',
      hueid: ids.light(1),
    });
    expect(light.status).toBe(201);
    const id = light.body._id as string;
    await eventually(async () => {
      const put = await site('PUT', '/light/state', { _id: id, on: true, bri: 128 });
      return put.status === 200 && (bridge.light(1).on as { on: boolean }).on;
    }, 'the bridge light to switch on');
    expect(bridge.light(1).dimming).toMatchObject({ brightness: 50 });

    // "In the Hue app".
    bridge.change(ids.light(1), { dimming: { brightness: 20 } });
    await eventually(async () => {
      const l = (await site('GET', '/light')).body.find((x: { _id: string }) => x._id === id);
      return l?.bri === 51 ? l : undefined;
    }, 'the Hue app change on the site API');

    // A Hue dimmer switch button bound to a Hearth action: switch the sofa light off.
    const sensor = await site('POST', '/sensor', {
      name: 'Dimmer',
      vendor: 'hue',
      hueid: ids.dimmer,
      type: 'switch',
    });
    expect(sensor.status).toBe(201);
    const action = await site('POST', '/sensor/action', {
      _id: sensor.body._id,
      event: '4_short_release',
      action: { type: 'light', _id: id, on: false, bri: 0 },
    });
    expect(action.status).toBe(201);
    bridge.pressButton(4, 'short_release');
    await eventually(
      () => (bridge.light(1).on as { on: boolean }).on === false,
      'the button to switch the light off',
    );
  });

  it('a light created for a Hue light that is on shows it on at once, not off until the next event', async () => {
    const { hub, bridge, site } = await start();
    bridge.change(ids.light(3), { on: { on: true }, dimming: { brightness: 60 } });
    bridge.pressLinkButton();
    const paired = await hub.admin('POST', '/admin/hue/bridges', {
      host: bridge.host,
      port: bridge.port,
      site: 'Home',
    });
    expect(paired.status).toBe(201);
    await eventually(async () => {
      const l = await hub.admin('GET', '/admin/hue/bridges');
      return (l.body as Array<{ connected: boolean }>)[0]?.connected;
    }, 'the bridge to connect');
    // Nothing changes on the bridge from here on: no event would ever correct an "off".
    const light = await site('POST', '/light', {
      name: 'Reading',
      type: 'dimmable',
      vendor: 'hue',
      hueid: ids.light(3),
    });
    expect(light.status).toBe(201);
    expect(light.body).toMatchObject({ on: true, bri: 153 });
    const listed = (await site('GET', '/light')).body.find((x: { _id: string }) => x._id === light.body._id);
    expect(listed).toMatchObject({ on: true, bri: 153 });
  });

  it('toggling a Hearth group made of the lights of a Hue room sends one grouped_light command', async () => {
    const { hub, bridge, site } = await start();
    bridge.pressLinkButton();
    const paired = await hub.admin('POST', '/admin/hue/bridges', {
      host: bridge.host,
      port: bridge.port,
      site: 'Home',
    });
    expect(paired.status).toBe(201);
    const lights: string[] = [];
    for (const n of [1, 2, 3, 4]) {
      const l = await site('POST', '/light', {
        name: `L${n}`,
        type: 'dimmable',
        vendor: 'hue',
        hueid: ids.light(n),
      });
      expect(l.status).toBe(201);
      lights.push(l.body._id as string);
    }
    const group = await site('POST', '/light/group', { name: 'Living room', lights });
    expect(group.status).toBe(201);
    await eventually(async () => {
      const l = await hub.admin('GET', '/admin/hue/bridges');
      return (l.body as Array<{ connected: boolean }>)[0]?.connected;
    }, 'the bridge to connect');
    const on = await site('PUT', '/light/group/toggle', { _id: group.body._id });
    expect(on.body).toMatchObject({ on: true, failed: [] });
    await eventually(() => [1, 2, 3, 4].every((n) => (bridge.light(n).on as { on: boolean }).on), 'all on');
    const off = await site('PUT', '/light/group/toggle', { _id: group.body._id });
    expect(off.body).toMatchObject({ on: false, failed: [] });
    await eventually(() => [1, 2, 3, 4].every((n) => !(bridge.light(n).on as { on: boolean }).on), 'all off');
    expect(bridge.stats.lightPuts).toBe(0);
    expect(bridge.stats.groupPuts).toBe(2);
  });

  it('bridge scenes become Hearth scenes, applied by one recall on the bridge and kept in sync', async () => {
    const { hub, bridge, site } = await start();
    bridge.pressLinkButton();
    const paired = await hub.admin('POST', '/admin/hue/bridges', {
      host: bridge.host,
      port: bridge.port,
      site: 'Home',
    });
    expect(paired.status).toBe(201);
    const lights: string[] = [];
    for (const n of [1, 2, 3, 4]) {
      const l = await site('POST', '/light', {
        name: `L${n}`,
        type: 'dimmable',
        vendor: 'hue',
        hueid: ids.light(n),
      });
      lights.push(l.body._id as string);
    }
    // Lights created after the bridge reported its scenes join them: the scene sets each at 40 %, 447 mirek.
    const scene = await eventually(async () => {
      const list = (await site('GET', '/scene')).body as Array<{
        _id: string;
        name: string;
        state: unknown[];
      }>;
      const s = list.find((x) => x.name === 'Living room: Relax');
      return s && s.state.length === 4 ? s : undefined;
    }, 'the bridge scene on the site API');
    expect(scene.state).toEqual(lights.map((_id) => ({ _id, on: true, bri: 102, ct: 447, colormode: 'ct' })));
    await eventually(async () => {
      const l = await hub.admin('GET', '/admin/hue/bridges');
      return (l.body as Array<{ connected: boolean }>)[0]?.connected;
    }, 'the bridge to connect');

    const applied = await site('PUT', '/scene/apply', { _id: scene._id });
    expect(applied.status).toBe(200);
    expect(applied.body).toMatchObject({ _id: scene._id, failed: [] });
    expect(bridge.stats).toMatchObject({ scenePuts: 1, lightPuts: 0 });
    expect(bridge.light(3)).toMatchObject({ on: { on: true }, dimming: { brightness: 40 } });
    // The lights' new states come back from the bridge.
    await eventually(async () => {
      const all = (await site('GET', '/light')).body as Array<{ on: boolean; bri: number }>;
      return all.length === 4 && all.every((l) => l.on && l.bri === 102);
    }, 'the recalled levels on the site API');

    // A Hue button bound to the bridge scene recalls it.
    const sensor = await site('POST', '/sensor', {
      name: 'Dimmer',
      vendor: 'hue',
      hueid: ids.dimmer,
      type: 'switch',
    });
    await site('POST', '/sensor/action', {
      _id: sensor.body._id,
      event: '1_short_release',
      action: { type: 'scene', _id: scene._id },
    });
    bridge.pressButton(1, 'short_release');
    await eventually(() => bridge.stats.scenePuts === 2, 'the button to recall the scene');

    // Renamed "in the Hue app": the same Hearth scene, renamed.
    bridge.change(ids.scene, { metadata: { name: 'Calm' } });
    await eventually(async () => {
      const list = (await site('GET', '/scene')).body as Array<{ _id: string; name: string }>;
      return list.length === 1 && list[0]?._id === scene._id && list[0].name === 'Living room: Calm';
    }, 'the renamed scene');
  });

  it('moves an application key stored in plain text by an older version into the secrets store, and the bridge still connects', async () => {
    bridge = await SimulatedBridge.start({ coalesceMs: 50 });
    const appKey = bridge.addKey();
    const dir = mkdtempSync(path.join(tmpdir(), 'hearth-hue-old-'));
    try {
      // The data dir as an older version wrote it: the key in plain text in hue.keys.json.
      writeFileSync(path.join(dir, 'hue.keys.json'), JSON.stringify({ keys: { [bridge.bridgeId]: appKey } }));
      const first = await startTestHub({ plugins: ['lighting'], dataDir: dir });
      const siteid = ((await first.admin('GET', '/admin/sites')).body as Array<{ siteid: string }>)[0]
        ?.siteid;
      await first.stop({ keepData: true });
      const record = {
        bridgeId: bridge.bridgeId,
        host: bridge.host,
        port: bridge.port,
        site: siteid,
        pinnedCert: bridge.certs.certPem,
        fingerprint256: bridge.certs.fingerprint256,
        pairedAt: '2026-11-01T00:00:00.000Z',
      };
      writeFileSync(path.join(dir, 'hue.bridges.json'), JSON.stringify({ bridges: [record] }));
      hub = await startTestHub({ plugins: ['lighting', 'hue'], dataDir: dir });
      const h = hub;
      await eventually(async () => {
        const l = await h.admin('GET', '/admin/hue/bridges');
        return (l.body as Array<{ connected: boolean }>)[0]?.connected;
      }, 'the bridge to connect with the moved key');
      for (const f of dataFileTexts(dir)) expect(f.text, f.name).not.toContain(appKey);
      expect(JSON.stringify(h.logs)).not.toContain(appKey);
      // And from the secrets store alone after a restart.
      hub = await h.restart();
      const again = hub;
      await eventually(async () => {
        const l = await again.admin('GET', '/admin/hue/bridges');
        return (l.body as Array<{ connected: boolean }>)[0]?.connected;
      }, 'the bridge to connect after a restart');
    } finally {
      await hub?.stop();
      hub = null;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('pairing is a job a restart reads back: started before the restart, paired after it', async () => {
    bridge = await SimulatedBridge.start({ coalesceMs: 50 });
    hub = await startTestHub({
      plugins: ['lighting', 'hue'],
      config: { plugins: { hue: { pairingTimeoutMs: 60000 } } },
    });
    const started = await hub.admin('POST', '/admin/hue/pairings', {
      host: bridge.host,
      port: bridge.port,
      site: 'Home',
    });
    expect(started.status).toBe(202);
    const job = started.body as { id: string; state: string; prompt: string; deadline: string };
    expect(job).toMatchObject({ state: 'waiting', prompt: expect.stringMatching(/Press the link button/) });
    const h = hub;
    await eventually(async () => {
      const j = (await h.admin('GET', `/admin/hue/pairings/${job.id}`)).body as { bridgeId?: string };
      return j.bridgeId === bridge?.bridgeId;
    }, 'the bridge to answer');

    hub = await h.restart();
    const again = hub;
    expect((await again.admin('GET', `/admin/hue/pairings/${job.id}`)).body).toMatchObject({
      state: 'waiting',
      deadline: job.deadline,
    });
    bridge.pressLinkButton();
    const done = await eventually(async () => {
      const j = (await again.admin('GET', `/admin/hue/pairings/${job.id}`)).body as { state: string };
      return j.state !== 'waiting' ? j : undefined;
    }, 'the resumed pairing to finish');
    expect(done).toMatchObject({ state: 'paired', bridgeId: bridge.bridgeId, trust: 'pinned' });
    await eventually(async () => {
      const l = await again.admin('GET', '/admin/hue/bridges');
      return (l.body as Array<{ connected: boolean }>)[0]?.connected;
    }, 'the paired bridge to connect');
    expect((await again.admin('GET', '/admin/hue/pairings/nope')).status).toBe(404);
  });

  it('a pairing whose time ran out while the hub was down fails as link button not pressed', async () => {
    bridge = await SimulatedBridge.start({ coalesceMs: 50 });
    const dir = mkdtempSync(path.join(tmpdir(), 'hearth-hue-pairing-'));
    try {
      const past = Date.now() - 60_000;
      const job = {
        id: 'interrupted',
        host: bridge.host,
        port: bridge.port,
        site: 'unused',
        state: 'waiting',
        startedAt: new Date(past - 30_000).toISOString(),
        deadline: new Date(past).toISOString(),
      };
      writeFileSync(path.join(dir, 'hue.pairings.json'), JSON.stringify({ jobs: [job] }));
      hub = await startTestHub({ plugins: ['lighting', 'hue'], dataDir: dir });
      const h = hub;
      const done = await eventually(async () => {
        const j = (await h.admin('GET', '/admin/hue/pairings/interrupted')).body as { state: string };
        return j.state !== 'waiting' ? j : undefined;
      }, 'the expired pairing to end');
      expect(done).toMatchObject({ state: 'failed', error: { code: 'link_button_not_pressed' } });
    } finally {
      await hub?.stop();
      hub = null;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the CLI prompts for the link button', async () => {
    const { hub, bridge } = await start();
    bridge.pressLinkButton();
    const out: string[] = [];
    const cmd = hueCommands.find((c) => c.name === 'hue pair')!;
    const code = await cmd.run(
      { positionals: [bridge.host], values: { site: 'Home', port: String(bridge.port) } },
      {
        admin: { request: (m: string, p: string, b?: unknown) => hub.admin(m, p, b) } as never,
        out: (l) => out.push(l),
        err: (l) => out.push(l),
      },
    );
    expect(code).toBe(0);
    expect(out[0]).toMatch(/Press the link button/);
    expect(out.join('\n')).toMatch(/pinned it \(SHA-256/);
  });
});
