// The household app's service worker: keeps the app's shell (the page and its files) so the app opens
// without a network and says so. Network first: a reachable hub always serves the current files; the
// saved copy is only used when the hub cannot be reached. The API and the WebSocket are never cached.
const CACHE = 'hearth-shell-v1';
const SHELL = [
  'app.js',
  'api.js',
  'home.js',
  'setup.js',
  'setup-part.js',
  'setup-new-devices.js',
  'setup-pairing.js',
  'setup-lights.js',
  'setup-rooms.js',
  'setup-scenes.js',
  'setup-buttons.js',
  'setup-actions.js',
  'setup-mqtt-credentials.js',
  'setup-matter.js',
  'forms.js',
  'schedules.js',
  'history.js',
  'chart.js',
  'readings.js',
  'favourites.js',
  'i18n.js',
  'strings.js',
  'view.js',
  'words.js',
  'colour.js',
  'blackbody.js',
  'style.css',
  'icon.svg',
].map((f) => `/lighting/ui/${f}`);

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      // The scope is the page itself (/site/<key>): kept from the start, not only after its next load.
      .then((cache) => cache.addAll([...SHELL, self.registration.scope]))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

/** The page itself (/site/<key>) and the app's files; everything else goes to the network untouched. */
function isShell(url, request) {
  if (url.origin !== self.location.origin) return false;
  if (request.mode === 'navigate') return url.pathname.startsWith('/site/');
  return url.pathname.startsWith('/lighting/ui/') || url.pathname.endsWith('/manifest.webmanifest');
}

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || !isShell(url, event.request)) return;
  event.respondWith(
    fetch(event.request)
      .then((res) => {
        // Only good answers replace the saved copy: a 404 for a rotated key must not be kept.
        if (res.ok) {
          const copy = res.clone();
          event.waitUntil(caches.open(CACHE).then((cache) => cache.put(event.request, copy)));
        }
        return res;
      })
      .catch(() => caches.match(event.request).then((saved) => saved ?? Response.error())),
  );
});
