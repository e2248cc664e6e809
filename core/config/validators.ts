/**
 * Compiled config validators. ajv compiles a schema into a function by generating and evaluating code,
 * which was the largest single cost of a start (about 0.2 s of CPU for the core's and seven plugins'
 * schemas). The build compiles them ahead of time (`core/config/aot.ts` writes dist/lib/config-validators.js
 * with ajv's standalone code); a start from dist/ looks each schema up there by a hash of its JSON and
 * compiles only a schema the build did not see (a plugin changed since, or a run from the sources).
 * ajv itself is then loaded only when something has to be compiled.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Ajv, ValidateFunction } from 'ajv';
import type { JsonSchema } from '../plugin/types.ts';

/** The options every config validator is compiled with, ahead of time or at run time alike. */
export const AJV_OPTIONS = {
  allErrors: true,
  useDefaults: true,
  strict: false,
  // The schemas are checked against the meta-schema by `npm run check:plugins`, not at every start.
  validateSchema: false,
} as const;

/** Where the build writes the compiled validators (dist/lib/), relative to this module in dist/core/config/. */
export const PRECOMPILED_FILE = fileURLToPath(new URL('../../lib/config-validators.js', import.meta.url));

/** A stable name for a schema: the hash of its JSON (an identifier, for the standalone module's exports). */
export const schemaKey = (schema: JsonSchema): string =>
  `v${createHash('sha256').update(JSON.stringify(schema)).digest('hex').slice(0, 24)}`;

let precompiled: Record<string, ValidateFunction> = {};
let compiler: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();

/** Loads the build's compiled validators, if this runs from a build that has them. Safe to call twice. */
export async function loadPrecompiledValidators(file = PRECOMPILED_FILE): Promise<void> {
  if (!existsSync(file)) return;
  const mod = (await import(pathToFileURL(file).href)) as { default?: Record<string, ValidateFunction> };
  precompiled = mod.default ?? {};
}

/** The validator for `schema`: the build's, else one compiled now (once per schema per process). */
export function validatorFor(schema: JsonSchema): ValidateFunction {
  const key = schemaKey(schema);
  let validate = precompiled[key] ?? compiled.get(key);
  if (!validate) {
    validate = ajv().compile(schema);
    compiled.set(key, validate);
  }
  return validate;
}

function ajv(): Ajv {
  if (!compiler) {
    // CommonJS, so it loads synchronously on first use.
    const { Ajv: AjvClass } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
    // Run-time compilation validates one config once: optimising the generated code does not pay.
    compiler = new AjvClass({ ...AJV_OPTIONS, code: { optimize: false } });
  }
  return compiler;
}

/** ajv's standalone CommonJS module exporting a validator for each schema under its `schemaKey`. */
export function standaloneSource(schemas: JsonSchema[]): string {
  const load = createRequire(import.meta.url);
  const { Ajv: AjvClass } = load('ajv') as typeof import('ajv');
  const standalone = (load('ajv/dist/standalone') as typeof import('ajv/dist/standalone/index.js')).default;
  const aot = new AjvClass({ ...AJV_OPTIONS, code: { source: true } });
  const exports: Record<string, string> = {};
  for (const schema of schemas) {
    const key = schemaKey(schema);
    if (exports[key]) continue;
    aot.addSchema(schema, key);
    exports[key] = key;
  }
  return standalone(aot, exports);
}
