/**
 * The household app's one string catalogue: English and German have the same keys and the same `{values}`,
 * every key the app's modules ask for exists, and the language follows the browser's list.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain browser JavaScript without types
import { pickLanguage } from '../../plugins/lighting/web/i18n.js';
// @ts-expect-error plain browser JavaScript without types
import { de, en } from '../../plugins/lighting/web/strings.js';

const WEB = path.resolve('plugins/lighting/web');
const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('the household app’s string catalogue', () => {
  it('has the same keys and placeholders in English and German', () => {
    expect(Object.keys(de).sort()).toEqual(Object.keys(en).sort());
    for (const key of Object.keys(en)) expect(placeholders(de[key]), key).toEqual(placeholders(en[key]));
  });

  it('holds every key the modules and the page ask for, and no text is left outside it', () => {
    const used = new Set<string>();
    for (const file of readdirSync(WEB).filter((f) => f.endsWith('.js') && f !== 'strings.js')) {
      const source = readFileSync(path.join(WEB, file), 'utf8');
      for (const m of source.matchAll(/\bt\('(\w+)'/g)) used.add(m[1]!);
    }
    for (const m of readFileSync(path.join(WEB, 'index.html'), 'utf8').matchAll(/data-t(?:-label)?="(\w+)"/g))
      used.add(m[1]!);
    expect([...used].filter((k) => !Object.hasOwn(en, k))).toEqual([]);
    expect(used.size).toBeGreaterThan(100);
  });

  it('follows the first language of the browser’s list it has, English otherwise', () => {
    expect(pickLanguage(['de-AT', 'en'])).toBe('de');
    expect(pickLanguage(['fr-FR', 'de'])).toBe('de');
    expect(pickLanguage(['fr-FR', 'en-GB'])).toBe('en');
    expect(pickLanguage([])).toBe('en');
    expect(pickLanguage(undefined)).toBe('en');
  });
});
