import { invalid, notSupported } from '../errors.ts';
import { ownValue } from '../own.ts';
import type { RawParams } from './body.ts';

/**
 * Typed access to JSON or form parameters with the coercions deepl-node's form needs: `'1'/'0'` booleans,
 * comma-joined lists, repeated values (docs/translation.md#wire-format-of-the-official-clients "Wire format").
 */
export class ParamReader {
  constructor(private readonly raw: RawParams) {}

  get isJson(): boolean {
    return this.raw.kind === 'json';
  }

  has(name: string): boolean {
    return this.raw.kind === 'json'
      ? ownValue(this.raw.values, name) !== undefined
      : this.raw.values.has(name);
  }

  /** The value as sent: a JSON value, or the first form value (text). */
  value(name: string): unknown {
    return this.raw.kind === 'json' ? ownValue(this.raw.values, name) : this.raw.values.get(name)?.[0];
  }

  /**
   * A single string; JSON numbers are accepted as their decimal text. A form field given twice is
   * ambiguous (which one did the client mean?) and refused rather than silently taking the first.
   */
  string(name: string): string | undefined {
    if (this.raw.kind === 'form') {
      const values = this.raw.values.get(name);
      if (values && values.length > 1) throw invalid(`Parameter '${name}' may be given only once.`);
      return values?.[0];
    }
    const value = ownValue(this.raw.values, name);
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return value;
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    throw notSupported(name);
  }

  /** A list: JSON array or string, form values repeated; `commas` splits each value on commas. */
  list(name: string, commas: boolean): string[] | undefined {
    let values: string[];
    if (this.raw.kind === 'form') {
      const found = this.raw.values.get(name);
      if (!found) return undefined;
      values = found;
    } else {
      const value = ownValue(this.raw.values, name);
      if (value === undefined || value === null) return undefined;
      if (typeof value === 'string') values = [value];
      else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) values = value as string[];
      else throw notSupported(name);
    }
    if (!commas) return values;
    return values
      .flatMap((v) => v.split(','))
      .map((v) => v.trim())
      .filter((v) => v !== '');
  }

  /** A boolean: JSON true/false, or `1`/`0`/`true`/`false` as text (the form variant). */
  boolean(name: string): boolean | undefined {
    const value = this.value(name);
    if (value === undefined || value === null) return undefined;
    if (value === true || value === 1 || value === '1' || value === 'true') return true;
    if (value === false || value === 0 || value === '0' || value === 'false') return false;
    throw notSupported(name);
  }

  /** One of the allowed values (compared case-sensitively, as DeepL does). */
  oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(value)) throw notSupported(name);
    return value as T;
  }
}
