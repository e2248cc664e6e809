import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

/**
 * The TypeScript type of a configuration validated against `schema` with its defaults applied: the
 * schema (declared `as const satisfies JsonSchema`) is the one source of truth for names and types.
 * Properties with a default are present; others stay optional.
 */
export type ConfigOf<S extends JSONSchema> = FromSchema<S>;
