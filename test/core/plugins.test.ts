import { describe, expect, it } from 'vitest';
import { checkMetadata } from '../../core/plugin/discover.ts';
import { orderPlugins } from '../../core/plugin/order.ts';
import { startTestHub } from '../helpers/hub.ts';
import { probe } from './fixtures/plugins.ts';

describe('plugin metadata', () => {
  it('is checked before any plugin code runs: name against folder, version, start', () => {
    const good = { name: 'lights', version: '1.2.3', description: 'd', configSchema: {}, start() {} };
    expect(checkMetadata(good, 'lights')).toEqual([]);
    expect(checkMetadata(good, 'lighting')).toEqual(['name "lights" does not match folder "lighting"']);
    expect(checkMetadata({ ...good, version: 'one' }, 'lights')).toEqual(['version must be semver']);
    expect(checkMetadata({ ...good, start: undefined }, 'lights')).toEqual(['start(ctx) is missing']);
    expect(checkMetadata({ ...good, requires: 'core' }, 'lights')).toEqual([
      'requires must be an array of plugin names',
    ]);
  });
});

describe('plugin ordering', () => {
  const rec = { events: [] as string[] };
  it('puts requirements and enabled optional plugins first', () => {
    const a = probe('a', rec, { requires: ['b'] });
    const b = probe('b', rec, { optional: ['c'] });
    const c = probe('c', rec);
    const { order, unmet } = orderPlugins([a, b, c], () => true);
    expect(order.map((p) => p.name)).toEqual(['c', 'b', 'a']);
    expect(unmet).toEqual([]);
  });

  it('reports missing, disabled and cyclic requirements', () => {
    const x = probe('x', rec, { requires: ['nope'] });
    const y = probe('y', rec, { requires: ['z'] });
    const z = probe('z', rec);
    const p = probe('p', rec, { requires: ['q'] });
    const q = probe('q', rec, { requires: ['p'] });
    const { order, unmet } = orderPlugins([x, y, z, p, q], (n) => n !== 'z');
    expect(order).toEqual([]);
    const reasons = Object.fromEntries(unmet.map((u) => [u.plugin.name, u.reason]));
    expect(reasons.x).toBe('requires plugin "nope", which is not installed');
    expect(reasons.y).toBe('requires plugin "z", which is disabled');
    expect(reasons.q).toMatch(/dependency cycle: p -> q -> p/);
  });
});

describe('plugin lifecycle in a real hub', () => {
  it('starts in dependency order, stops in reverse, and delivers bus events', async () => {
    const rec = { events: [] as string[] };
    const t = await startTestHub({
      extraPlugins: [probe('app', rec, { requires: ['base'] }), probe('base', rec)],
    });
    expect(rec.events).toEqual(['start base', 'start app', 'ready seen by base', 'ready seen by app']);
    await t.stop();
    expect(rec.events.slice(-2)).toEqual(['stop app', 'stop base']);
  });

  it('disables a plugin that throws, and its dependents, while the others keep running', async () => {
    const rec = { events: [] as string[] };
    const t = await startTestHub({
      extraPlugins: [
        probe('broken', rec, { fail: true }),
        probe('needs-broken', rec, { requires: ['broken'] }),
        probe('fine', rec),
      ],
    });
    const ready = (await (await fetch(`${t.url}/ready`)).json()) as {
      status: string;
      plugins: Array<Record<string, unknown>>;
    };
    expect(ready.status).toBe('degraded');
    const byName = Object.fromEntries(ready.plugins.map((p) => [p.name, p]));
    expect(byName.broken).toMatchObject({ status: 'failed', error: 'broken cannot start' });
    expect(byName['needs-broken']).toMatchObject({
      status: 'failed',
      error: 'requires plugin "broken", which failed to start',
    });
    expect(byName.fine).toMatchObject({ status: 'running' });
    expect((await fetch(`${t.url}/probe/fine`)).status).toBe(200);
    // The failed plugin's routes and bus subscriptions are gone.
    expect(t.hub.bus.count('broken')).toBe(0);
    await t.stop();
  });

  it('treats a start that exceeds the timeout as a failure', async () => {
    const rec = { events: [] as string[] };
    const t = await startTestHub({
      extraPlugins: [probe('slow', rec, { hang: true }), probe('fine', rec)],
      config: { lifecycle: { pluginStartTimeoutMs: 300 } },
    });
    const ready = (await (await fetch(`${t.url}/ready`)).json()) as {
      plugins: Array<Record<string, unknown>>;
    };
    expect(ready.plugins.find((p) => p.name === 'slow')).toMatchObject({
      status: 'failed',
      error: 'plugin slow start timed out after 300 ms',
    });
    await t.stop();
  });

  it('fails the whole start when a required plugin fails', async () => {
    const rec = { events: [] as string[] };
    await expect(
      startTestHub({
        extraPlugins: [probe('critical', rec, { fail: true })],
        config: { plugins: { critical: { required: true } } },
      }),
    ).rejects.toThrow('required plugin critical failed to start: critical cannot start');
  });

  it('does not start a plugin disabled in config', async () => {
    const rec = { events: [] as string[] };
    const t = await startTestHub({
      extraPlugins: [probe('off', rec), probe('on', rec)],
      config: { plugins: { off: { enabled: false } } },
    });
    expect(rec.events.filter((e) => e.startsWith('start'))).toEqual(['start on']);
    await t.stop();
  });

  it('removes a plugin’s bus subscriptions when it stops and survives a throwing listener', async () => {
    const rec = { events: [] as string[] };
    const t = await startTestHub({ extraPlugins: [probe('a', rec)] });
    expect(t.hub.bus.count('a')).toBe(1);
    let reached = false;
    t.hub.bus.on('test', 'core.stopping', () => {
      throw new Error('listener bug');
    });
    t.hub.bus.on('test', 'core.stopping', () => {
      reached = true;
    });
    await t.stop();
    expect(reached).toBe(true);
    expect(t.hub.bus.count('a')).toBe(0);
    expect(t.logs.some((l) => l.msg === 'test/core.stopping listener failed')).toBe(true);
  });
});
