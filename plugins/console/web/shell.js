// The console shell: signs in once per browser session (an HttpOnly cookie), lists the pages plugins
// contributed and loads each as an ES module that exports render(root, api).
const $ = (id) => document.getElementById(id);
let csrf = '';

let said = 0;
/**
 * Puts a message in the polite live region. The same text twice in a row is cleared first and set again a
 * moment later, since a screen reader announces a change, not a rewrite of the same words.
 */
function say(text, bad = false) {
  const el = $('say');
  const mine = ++said;
  el.className = bad ? 'bad' : '';
  if (el.textContent !== text) {
    el.textContent = text;
    return;
  }
  el.textContent = '';
  setTimeout(() => {
    if (mine === said) el.textContent = text;
  }, 150);
}

async function call(method, path, body, headers = {}) {
  const init = { method, headers: { ...headers }, credentials: 'same-origin' };
  if (method !== 'GET' && method !== 'HEAD') init.headers['x-hearth-csrf'] = csrf;
  if (body !== undefined) {
    if (body instanceof Blob) init.body = body;
    else {
      init.headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
  }
  const res = await fetch(path, init);
  if (res.status === 401 && path !== '/admin/ui/session') {
    showSignIn();
    throw new Error('signed out: sign in again');
  }
  const type = res.headers.get('content-type') ?? '';
  const data = type.includes('json') ? await res.json() : await res.text();
  if (!res.ok) throw new Error(data?.message ?? data?.detail ?? data?.error_description ?? `${res.status}`);
  return data;
}

/** What a page gets. Admin API paths without `/admin`: api.get('/sites') is GET /admin/sites. */
const api = {
  get: (path) => call('GET', `/admin/ui/api${path}`),
  send: (method, path, body) => call(method, `/admin/ui/api${path}`, body),
  upload: (path, blob, type) => call('POST', `/admin/ui/api${path}`, blob, { 'content-type': type }),
  /** A data: URL of an SVG QR code of `text`. */
  qr: async (text) =>
    `data:image/svg+xml,${encodeURIComponent(await call('POST', '/admin/ui/qr', { text }))}`,
  href: (path) => `/admin/ui/api${path}`,
  /** 'password' (the owner) or 'key' (the admin key): how this session was opened. */
  session: () => kind,
  say,
  /** h('p', {class: 'x'}, 'text', child…): builds elements without HTML strings. */
  h(tag, attrs = {}, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
      else if (v !== false && v != null) el.setAttribute(k, v === true ? '' : String(v));
    }
    el.append(...children.flat().filter((c) => c != null));
    return el;
  },
};

let kit;
/**
 * Adds the pages' building blocks to `api` (run, button, table, label, checkbox, textarea, saveCancel,
 * editor, rename, words: web/kit.js). Loaded once signed in: the sign-in screen does without them.
 */
function loadKit() {
  kit ??= import('/admin/ui/kit.js').then(({ pageKit }) => Object.assign(api, pageKit(api.h, say)));
  return kit;
}

/**
 * A table wider than its box scrolls inside it on a phone or tablet (style.css); such a table takes the
 * keyboard focus so it can be scrolled without a mouse, and gives it up again once it fits.
 */
function markScrollableTables() {
  for (const table of $('page-body').querySelectorAll('table')) {
    if (table.scrollWidth > table.clientWidth) table.tabIndex = 0;
    else if (table.getAttribute('tabindex') === '0') table.removeAttribute('tabindex');
  }
}
new MutationObserver(markScrollableTables).observe($('page-body'), { childList: true, subtree: true });
window.addEventListener('resize', markScrollableTables);

const STARTS = ['claim-start', 'claim-code', 'claim', 'claim-remote', 'sign-in-password', 'sign-in'];

/** Shows one of the start forms (and the claim section around a claim form); hides the console. */
function showStart(...ids) {
  for (const id of STARTS) $(id).hidden = !ids.includes(id);
  $('nav').hidden = true;
  $('page').hidden = true;
  $('sign-out').hidden = true;
  document.querySelector(`#${ids.at(-1)} input`)?.focus();
}

/**
 * What a browser without a session sees: "Set up this hub" while the hub is unclaimed (after the setup
 * code when the hub asks for one), else the owner password, else the admin key.
 */
async function showSignIn() {
  let start = { claim: null, password: false };
  try {
    const res = await fetch('/admin/ui/start', { credentials: 'same-origin' });
    if (res.ok) start = await res.json();
  } catch {}
  if (start.claim === 'open') showStart('claim-start', 'claim');
  else if (start.claim === 'code') showStart('claim-start', 'claim-code');
  else if (start.claim === 'remote') showStart('claim-start', 'claim-remote', 'sign-in');
  else if (start.password) showStart('sign-in-password');
  else showStart('sign-in');
}

let opened = 0;
/**
 * Shows a page. Each page renders into its own element: when another page is opened before a slow one
 * finished, the slow one's late output lands in a detached element (and its timers see `isConnected`
 * false), never in the page now shown.
 */
async function open(id, title) {
  const mine = ++opened;
  for (const a of document.querySelectorAll('#pages a'))
    a.toggleAttribute('aria-current', a.dataset.page === id);
  document.querySelector(`#pages a[data-page="${id}"]`)?.setAttribute('aria-current', 'page');
  $('page').hidden = false;
  $('page-title').textContent = title;
  const body = document.createElement('div');
  $('page-body').replaceChildren(body);
  try {
    const mod = await import(`/admin/ui/pages/${id}.js`);
    // A page with an API of its own (types.ts `api`) reaches it through api.own.
    const own = {
      get: (path) => call('GET', `/admin/ui/via/${id}${path}`),
      send: (method, path, b) => call(method, `/admin/ui/via/${id}${path}`, b),
    };
    await mod.render(body, { ...api, own });
  } catch (err) {
    if (mine === opened) say(`${title}: ${err.message}`, true);
  }
  if (mine === opened) $('page-title').focus();
}

async function showConsole() {
  for (const id of STARTS) $(id).hidden = true;
  $('sign-out').hidden = false;
  const [pages] = await Promise.all([call('GET', '/admin/ui/pages'), loadKit()]);
  $('pages').replaceChildren(
    ...pages.map((p) => api.h('li', {}, api.h('a', { href: `#${p.id}`, 'data-page': p.id }, p.title))),
  );
  $('nav').hidden = false;
  // Listening before the first page loads: a link used while it loads is not lost.
  window.onhashchange = () => {
    const p = pages.find((x) => `#${x.id}` === location.hash);
    if (p) open(p.id, p.title);
  };
  const wanted = pages.find((p) => `#${p.id}` === location.hash) ?? pages[0];
  if (wanted) await open(wanted.id, wanted.title);
}

let kind = 'key';

/** Signs in with `body` ({key} or {password}); the field is emptied whatever the answer. */
async function signIn(body, field) {
  try {
    const res = await call('POST', '/admin/ui/session', body);
    csrf = res.csrf;
    kind = res.kind;
    say('Signed in.');
    await showConsole();
  } catch (err) {
    say(err.message, true);
  } finally {
    field.value = '';
  }
}

$('sign-in').addEventListener('submit', (e) => {
  e.preventDefault();
  signIn({ key: $('key').value }, $('key'));
});
$('sign-in-password').addEventListener('submit', (e) => {
  e.preventDefault();
  signIn({ password: $('password').value }, $('password'));
});
$('use-key').addEventListener('click', () => showStart('sign-in'));

// The setup code is sent again with the claim itself: the hub checks it there as well.
let setupCode;
$('claim-code').addEventListener('submit', async (e) => {
  e.preventDefault();
  try {
    await call('POST', '/admin/ui/claim/code', { code: $('setup-code').value });
    setupCode = $('setup-code').value;
    showStart('claim-start', 'claim');
  } catch (err) {
    say(err.message, true);
  }
});
$('claim').addEventListener('submit', async (e) => {
  e.preventDefault();
  const password = $('owner-password').value;
  if (password !== $('owner-password-again').value) {
    say('The two passwords differ; type the same password twice.', true);
    $('owner-password-again').focus();
    return;
  }
  try {
    const res = await call('POST', '/admin/ui/claim', { password, code: setupCode });
    csrf = res.csrf;
    kind = res.kind;
    $('owner-password').value = '';
    $('owner-password-again').value = '';
    say('This hub is yours. Next: a few setup steps, each of which you can skip.');
    if (!location.hash) location.hash = '#setup';
    await showConsole();
  } catch (err) {
    say(err.message, true);
    // Someone else finished first, or the hub refuses: show what it offers now.
    if (/set up already|own network/.test(err.message)) await showSignIn();
  }
});

$('sign-out').addEventListener('click', async () => {
  await call('DELETE', '/admin/ui/session').catch(() => {});
  csrf = '';
  say('Signed out.');
  showSignIn();
});

try {
  const res = await fetch('/admin/ui/session', { credentials: 'same-origin' });
  if (res.ok) {
    ({ csrf, kind } = await res.json());
    await showConsole();
  } else showSignIn();
} catch {
  showSignIn();
}
