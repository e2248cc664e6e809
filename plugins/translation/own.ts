/**
 * Collections keyed by outside ids (key ids, reporting tags, upstream codes) are plain JSON objects on disk.
 * These helpers read and write only own properties, so an id such as `__proto__`, `constructor` or
 * `toString` is an ordinary key: never an inherited value, never a write to `Object.prototype`.
 */

/** The object's own value for `key`, or undefined. */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Sets an own property (defineProperty: `__proto__` becomes a key, not a prototype change). */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, writable: true, enumerable: true, configurable: true });
}

/** A fresh object without a prototype, for new keyed collections. */
export function keyedRecord<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** The own nested collection at `key`, created (without a prototype) when missing. */
export function ownChild<T>(record: Record<string, Record<string, T>>, key: string): Record<string, T> {
  const found = ownValue(record, key);
  if (found) return found;
  const created = keyedRecord<T>();
  setOwn(record, key, created);
  return created;
}
