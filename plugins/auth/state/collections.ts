/**
 * Collections keyed by outside ids (client ids, user ids, slugs, token hashes). A plain object would answer
 * `constructor` or `__proto__` from Object.prototype, so every such collection is a null-prototype object
 * and every lookup checks own properties.
 */
export type Dict<T> = Record<string, T>;

export const emptyDict = <T>(): Dict<T> => Object.create(null) as Dict<T>;

/** The record stored under `id`, never an inherited property. */
export function own<T>(dict: Dict<T>, id: string | undefined): T | undefined {
  return typeof id === 'string' && Object.hasOwn(dict, id) ? dict[id] : undefined;
}

/** Copies a parsed JSON object into a null-prototype one, keeping the entries `keep` accepts. */
export function toDict<T>(
  value: unknown,
  keep: (key: string, record: unknown) => boolean,
): { dict: Dict<T>; dropped: Array<{ key: string; record: unknown }> } {
  const dict = emptyDict<T>();
  const dropped: Array<{ key: string; record: unknown }> = [];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { dict, dropped };
  for (const key of Object.keys(value)) {
    const record: unknown = (value as Record<string, unknown>)[key];
    if (keep(key, record)) dict[key] = record as T;
    else dropped.push({ key, record });
  }
  return { dict, dropped };
}
