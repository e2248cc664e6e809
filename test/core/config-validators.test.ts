import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import {
  loadPrecompiledValidators,
  schemaKey,
  standaloneSource,
  validatorFor,
} from '../../core/config/validators.ts';
import type { JsonSchema } from '../../core/plugin/types.ts';

// Inside the repository, so the standalone code's require('ajv/dist/runtime/…') resolves as it does in dist/.
mkdirSync(path.join(import.meta.dirname, '../output'), { recursive: true });
const dir = mkdtempSync(path.join(import.meta.dirname, '../output/validators-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const schema: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    port: { type: 'integer', minimum: 0, maximum: 65535, default: 8080 },
    name: { type: 'string', maxLength: 8, default: 'hearth' },
    mode: { enum: ['a', 'b'], default: 'a' },
  },
};

describe('config validators compiled ahead of time', () => {
  test('the build’s standalone validators apply defaults and report errors as compiled ones do', async () => {
    const file = path.join(dir, 'config-validators.cjs');
    writeFileSync(file, standaloneSource([schema]));
    await loadPrecompiledValidators(file);
    const mod = (await import(pathToFileURL(file).href)) as { default: Record<string, unknown> };
    const validate = validatorFor(schema);
    // The start uses the build's function: nothing is compiled at run time.
    expect(validate).toBe(mod.default[schemaKey(schema)]);

    const data: Record<string, unknown> = {};
    expect(validate(data)).toBe(true);
    expect(data).toEqual({ port: 8080, name: 'hearth', mode: 'a' });

    expect(validate({ port: 70000, name: 'far too long', mode: 'c', extra: 1 })).toBe(false);
    const problems = (validate.errors ?? []).map((e) => `${e.instancePath} ${e.keyword}`).sort();
    expect(problems).toEqual([' additionalProperties', '/mode enum', '/name maxLength', '/port maximum']);
  });

  test('a schema the build did not see is compiled at run time, once', () => {
    const other: JsonSchema = { type: 'object', properties: { level: { type: 'string', default: 'info' } } };
    const validate = validatorFor(other);
    expect(validatorFor({ ...other })).toBe(validate);
    const data: Record<string, unknown> = {};
    expect(validate(data)).toBe(true);
    expect(data).toEqual({ level: 'info' });
    expect(validate({ level: 3 })).toBe(false);
  });
});
