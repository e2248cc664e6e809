/**
 * A page link with an unknown or outdated site key. API clients get the site API's JSON 404; a browser
 * (it asks for HTML) gets a page that says, in plain words, what happened and what to do.
 */
import type { Context } from 'koa';
import { unknownSite } from '../access.ts';

/** The page in the household app's languages (the browser's `Accept-Language` picks; English else). */
const TEXTS = {
  en: {
    title: 'This link does not work',
    why: 'The address may be mistyped, or the link to this home was replaced by a new one.',
    what: 'Ask the person who looks after your Hearth hub for the current link.',
  },
  de: {
    title: 'Dieser Link funktioniert nicht',
    why: 'Die Adresse ist vielleicht falsch geschrieben, oder der Link zu diesem Zuhause wurde durch einen neuen ersetzt.',
    what: 'Bitte die Person, die den Hearth-Hub betreut, nach dem aktuellen Link fragen.',
  },
} as const;

const page = (lang: keyof typeof TEXTS) => `<!doctype html>
<html lang="${lang}">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <title>${TEXTS[lang].title} · Hearth</title>
  <link rel="stylesheet" href="/lighting/ui/style.css">
</head>
<body>
  <main class="notice">
    <h1>${TEXTS[lang].title}</h1>
    <p>${TEXTS[lang].why}</p>
    <p>${TEXTS[lang].what}</p>
  </main>
</body>
</html>
`;
const PAGES = { en: page('en'), de: page('de') };

/** Answers 404: an HTML page when the client prefers HTML (a browser), else `{"message":"unknown site"}`. */
export function refuseUnknownSite(ctx: Context): void {
  // `*/*` (fetch, curl) picks the first listed type: JSON stays the default for API clients.
  if (ctx.accepts('json', 'html') !== 'html') throw unknownSite();
  ctx.status = 404;
  ctx.set({
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'Content-Security-Policy': "default-src 'self'; base-uri 'none'",
    'X-Content-Type-Options': 'nosniff',
  });
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = PAGES[ctx.acceptsLanguages('en', 'de') === 'de' ? 'de' : 'en'];
}
