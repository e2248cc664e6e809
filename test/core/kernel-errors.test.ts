import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertTopicFilter } from '../../core/mqtt/topics.ts';
import type { AnyPlugin } from '../../core/plugin/discover.ts';
import { definePlugin, type PluginContext } from '../../core/plugin/types.ts';
import { HearthError, isKernelError, type KernelErrorCode } from '../../core/sdk.ts';
import { startTestHub } from '../helpers/hub.ts';

const root = path.resolve(import.meta.dirname, '../..');

/** The codes declared in core/errors.ts, read from its source so a new code cannot miss the table. */
function declaredCodes(): string[] {
  const text = readFileSync(path.join(root, 'core/errors.ts'), 'utf8');
  const union = /export type KernelErrorCode =([^;]+);/.exec(text)?.[1] ?? '';
  return [...union.matchAll(/'([a-z_]+)'/g)].map((m) => m[1] as string);
}

async function caught(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('did not throw');
}

describe('errors of the core carry stable codes (docs/architecture.md#errors-of-the-core)', () => {
  it('documents every declared code in the table', () => {
    const doc = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');
    const codes = declaredCodes();
    expect(codes.length).toBeGreaterThan(20);
    expect(codes.filter((c) => !doc.includes(`| \`${c}\` |`))).toEqual([]);
  });

  it('gives a plugin codes it can branch on: undeclared plugin, bad topic, bad secret name, second lock', async () => {
    let ctx: PluginContext<unknown> | undefined;
    const probe = definePlugin<unknown, undefined>({
      name: 'probe',
      version: '0.0.0',
      description: 'test probe',
      configSchema: { type: 'object' },
      start: async (c) => {
        ctx = c;
        return { exports: undefined, stop: async () => {} };
      },
    }) as AnyPlugin;
    const hub = await startTestHub({ extraPlugins: [probe] });
    try {
      const c = ctx as PluginContext<unknown>;
      const expectCode = (err: unknown, code: KernelErrorCode) => {
        expect(err).toBeInstanceOf(HearthError);
        expect(isKernelError(err, code)).toBe(true);
      };
      expectCode(await caught(() => c.use('lighting' as never)), 'plugin_undeclared');
      expectCode(await caught(() => assertTopicFilter('a/#/b')), 'mqtt_bad_topic');
      expectCode(await caught(() => c.secrets.set('', 'value-of-a-secret')), 'secret_bad_name');
      expectCode(await caught(() => c.secrets.open('v1.x.y.z', 'ctx')), 'secret_unavailable');
      expectCode(await caught(() => startTestHub({ dataDir: hub.dataDir })), 'data_dir_locked');
      expectCode(await caught(() => startTestHub({ config: { dataDir: 5 } })), 'config_invalid');
    } finally {
      await hub.stop();
    }
  });

  it('isKernelError tells other errors apart', () => {
    expect(isKernelError(new Error('x'))).toBe(false);
    expect(isKernelError(new HearthError('hub_state', 'x'), 'hub_not_started')).toBe(false);
  });
});
