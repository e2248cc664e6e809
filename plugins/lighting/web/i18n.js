// Every text the household app shows, in one catalogue: English and German. The language chosen with the
// app's switch is kept in this browser (localStorage); until one is chosen, the page follows the browser's
// language list (`navigator.languages`): the first language we have wins, English otherwise.
// `{name}` in a text is filled from the values passed to `t`.
import { de, en } from './strings.js';

const CATALOGUES = new Map([
  ['en', en],
  ['de', de],
]);

/** The first of the browser's languages the catalogue has ('de-AT' counts as 'de'). */
export function pickLanguage(languages) {
  for (const tag of languages ?? []) {
    const base = String(tag).toLowerCase().split('-')[0];
    if (CATALOGUES.has(base)) return base;
  }
  return 'en';
}

const STORED = 'hearth.lighting.lang';

/** The language chosen with the switch in this browser, if any (storage may be off: then none). */
function chosenLanguage() {
  try {
    const v = globalThis.localStorage?.getItem(STORED);
    return v && CATALOGUES.has(v) ? v : null;
  } catch {
    return null;
  }
}

export const lang =
  chosenLanguage() ?? pickLanguage(globalThis.navigator?.languages ?? [globalThis.navigator?.language]);

/**
 * Keeps `code` as this browser's language for the app and shows the page again in it (every text, the
 * ones already drawn too). A browser that refuses storage cannot keep a choice: the page stays as it is.
 */
export function chooseLanguage(code) {
  if (!CATALOGUES.has(code) || code === lang) return false;
  try {
    globalThis.localStorage.setItem(STORED, code);
  } catch {
    return false;
  }
  globalThis.location.reload();
  return true;
}
const texts = CATALOGUES.get(lang);

/** The text for `key` in the page's language (English when German lacks it), with `{x}` filled in. */
export function t(key, values = {}) {
  const text = Object.hasOwn(texts, key) ? texts[key] : Object.hasOwn(en, key) ? en[key] : key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (Object.hasOwn(values, name) ? String(values[name]) : ''));
}

/** Puts the catalogue's texts into the static page: `data-t` (text), `data-t-label` (aria-label). */
export function translatePage(root = document) {
  document.documentElement.lang = lang;
  for (const node of root.querySelectorAll('[data-t]')) node.textContent = t(node.dataset.t);
  for (const node of root.querySelectorAll('[data-t-label]'))
    node.setAttribute('aria-label', t(node.dataset.tLabel));
}
