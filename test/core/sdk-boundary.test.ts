import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|js|mjs)$/.test(e.name) && !e.parentPath.includes('node_modules'))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)));
}

/** Every module specifier a file imports or re-exports, resolved against the repository root. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(root, file), 'utf8');
  const specs = [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'";]*?from\s*'([^']+)'/g)].map(
    (m) => m[1] as string,
  );
  const dynamic = [...text.matchAll(/import\(\s*'([^']+)'\s*\)/g)].map((m) => m[1] as string);
  return [...specs, ...dynamic]
    .filter((s) => s.startsWith('.'))
    .map((s) => path.relative(root, path.resolve(path.dirname(path.join(root, file)), s)));
}

describe('the plugin SDK boundary (docs/architecture.md#plugins)', () => {
  it('plugins and drivers reach the core only through core/sdk.ts', () => {
    const offenders = [...sources('plugins'), ...sources('drivers')].flatMap((file) =>
      importsOf(file)
        .filter((target) => target.startsWith(`core${path.sep}`) && target !== path.join('core', 'sdk.ts'))
        .map((target) => `${file} → ${target}`),
    );
    expect(offenders).toEqual([]);
  });

  it('drivers never import a plugin', () => {
    const offenders = sources('drivers').flatMap((file) =>
      importsOf(file)
        .filter((target) => target.startsWith(`plugins${path.sep}`))
        .map((target) => `${file} → ${target}`),
    );
    expect(offenders).toEqual([]);
  });

  it('finds an import into core internals when there is one (the check itself works)', () => {
    const probe = path.join('plugins', 'lighting', 'index.ts');
    expect(importsOf(probe).some((t) => t === path.join('core', 'sdk.ts'))).toBe(true);
  });
});
