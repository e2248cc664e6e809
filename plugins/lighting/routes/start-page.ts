/**
 * `http://<hub>:8080/`, the household's start page. A browser that opened a household link before goes
 * straight back to it (web/start.js, from what the app keeps in this browser); one that never did is told
 * how to get the link: from the person who set up the hub, as a QR code from the console. Never a 404.
 */
import type { Context } from 'koa';
import type { HearthRouter } from '../../../core/sdk.ts';

/** The page in the household app's languages (the browser's `Accept-Language` picks; English else). */
const TEXTS = {
  en: {
    title: 'Hearth',
    lead: 'This is the Hearth hub of your home.',
    how: 'To switch the lights from this phone, ask the person who set up the hub for the household link: they can show it as a QR code in the Hearth console (Set up, then Invite the household). Scan it with the camera, open it, and add the page to your home screen.',
    owner: 'Set up this hub yourself? The console is on port 9001 of this address.',
  },
  de: {
    title: 'Hearth',
    lead: 'Das ist der Hearth-Hub dieses Zuhauses.',
    how: 'Um das Licht mit diesem Telefon zu schalten, bitte die Person, die den Hub eingerichtet hat, um den Link für den Haushalt: Sie kann ihn in der Hearth-Konsole als QR-Code zeigen (Einrichten, dann Haushalt einladen). Mit der Kamera scannen, öffnen und die Seite zum Startbildschirm hinzufügen.',
    owner: 'Den Hub selbst einrichten? Die Konsole ist auf Port 9001 dieser Adresse.',
  },
} as const;

const page = (lang: keyof typeof TEXTS) => `<!doctype html>
<html lang="${lang}">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <meta name="color-scheme" content="light dark">
  <title>${TEXTS[lang].title}</title>
  <link rel="icon" href="/lighting/ui/icon.svg" type="image/svg+xml">
  <link rel="stylesheet" href="/lighting/ui/style.css">
  <script type="module" src="/lighting/ui/start.js"></script>
</head>
<body>
  <main class="notice" id="start">
    <h1>${TEXTS[lang].title}</h1>
    <p>${TEXTS[lang].lead}</p>
    <p>${TEXTS[lang].how}</p>
    <p>${TEXTS[lang].owner}</p>
  </main>
</body>
</html>
`;
const PAGES = { en: page('en'), de: page('de') };

export function mountStartPage(r: HearthRouter): void {
  r.get('/', (ctx: Context) => {
    if (ctx.path !== '/') return;
    const lang = ctx.acceptsLanguages('en', 'de') === 'de' ? 'de' : 'en';
    ctx.set({
      'Cache-Control': 'no-cache',
      'Content-Security-Policy':
        "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      Vary: 'Accept-Language',
    });
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = PAGES[lang];
  });
}
