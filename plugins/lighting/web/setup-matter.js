// Set up, "Apple Home, Google Home, Alexa": pairing this home's Matter bridge (`/matter` of the site API,
// the matter plugin's). Opening the pairing window shows the QR code (drawn by the hub) and the 11-digit
// manual code until the window closes; below, the controllers that added the bridge, each removable. Shown
// only when the matter plugin runs a bridge for this site and the app may manage the site (the site key
// or a `site:admin` token).
import { deleteButton } from './forms.js';
import { t } from './i18n.js';
import { heading, part } from './setup-part.js';
import { el, orEmpty } from './view.js';

/** Vendor ids of the ecosystems people pair with (the CSA's vendor list). */
const VENDORS = new Map([
  [0x1349, 'Apple Home'],
  [0x6006, 'Google Home'],
  [0x1217, 'Amazon Alexa'],
  [0x134b, 'Home Assistant'],
]);

const POLL_MS = 3000;

/** `34970112332` → `3497-011-2332`, as controllers print it. */
const grouped = (code) => `${code.slice(0, 4)}-${code.slice(4, 7)}-${code.slice(7)}`;

export const fabricName = (f) =>
  VENDORS.get(f.vendorId) ??
  (f.label || t('matterVendor', { id: `0x${f.vendorId.toString(16).padStart(4, '0')}` }));

/** Builds the section into `node`; answers its draw function. */
export function matterSection({ call, toast, save }, node) {
  /** The site's bridge object once loaded; null while unknown or when there is none for this app. */
  let bridge = null;
  let loading = false;
  /** Refused once (no bridge, or not a site admin): not asked again on every redraw of the app. */
  let absent = false;
  let closer = null;

  function got(b) {
    bridge = b;
    clearTimeout(closer);
    // While pairing is open, read the bridge again every few seconds: a phone that just paired shows up,
    // and the code goes away when the window closes (by itself, or because the pairing finished).
    if (b.windowOpenUntil)
      closer = setTimeout(
        load,
        Math.min(POLL_MS, Math.max(0, Date.parse(b.windowOpenUntil) - Date.now()) + 500),
      );
    draw();
  }

  function load() {
    if (loading) return;
    loading = true;
    call('GET', '/matter').then(
      (b) => {
        loading = false;
        got(b);
      },
      () => {
        // No matter plugin, no bridge for this site, or a token without site:admin: hidden.
        loading = false;
        absent = true;
        bridge = null;
        node.hidden = true;
      },
    );
  }

  async function open() {
    const b = await save(call('POST', '/matter/window'), t('matterWindowOpened'));
    if (!b) return;
    got(b);
    document.getElementById('matter-code')?.focus();
  }

  async function close() {
    const b = await save(call('DELETE', '/matter/window'), t('matterWindowClosed'));
    if (b) got(b);
  }

  async function remove(f) {
    const name = fabricName(f);
    if (!confirm(t('matterRemoveConfirm', { name }))) return;
    const removed = await call('DELETE', `/matter/fabrics/${f.fabricIndex}`).then(
      () => true,
      (err) => save(Promise.reject(err)).then(() => false),
    );
    if (!removed) return;
    toast(t('deleted', { name }));
    // The hub answered 204: the fabric is gone (a read right away may still list it while it closes).
    bridge = { ...bridge, fabrics: bridge.fabrics.filter((x) => x.fabricIndex !== f.fabricIndex) };
    draw();
  }

  function codes(b) {
    const until = new Date(b.windowOpenUntil).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    return el(
      'div',
      { class: 'matter-codes' },
      el('img', {
        class: 'qr',
        src: `data:image/svg+xml,${encodeURIComponent(b.qrSvg)}`,
        alt: t('matterQrAlt'),
        width: 200,
        height: 200,
      }),
      el(
        'p',
        {},
        `${t('matterManualCode')} `,
        el(
          'strong',
          { id: 'matter-code', tabindex: -1, 'data-code': b.manualPairingCode },
          grouped(b.manualPairingCode),
        ),
      ),
      el('p', { class: 'muted' }, t('matterWindowUntil', { time: until })),
      el('button', { type: 'button', onclick: close, 'data-focus': 'matter-close' }, t('matterCloseWindow')),
    );
  }

  function draw() {
    if (bridge === null) {
      // Hidden until the hub says there is a bridge this app may manage.
      node.hidden = true;
      if (!absent) load();
      return;
    }
    node.hidden = false;
    const b = bridge;
    const signature = JSON.stringify([b.windowOpenUntil, b.manualPairingCode, b.fabrics]);
    part(node, signature, () => [
      heading('h-matter', 'matterTitle'),
      el('p', { class: 'muted' }, t('matterHelp')),
      b.windowOpenUntil && b.qrSvg
        ? codes(b)
        : el('button', { type: 'button', onclick: open, 'data-focus': 'matter-open' }, t('matterOpenWindow')),
      el('h3', {}, t('matterControllers')),
      el(
        'ul',
        { class: 'rows', id: 'matter-fabrics' },
        ...orEmpty(
          b.fabrics.map((f) =>
            el(
              'li',
              { 'data-fabric': String(f.fabricIndex) },
              el(
                'span',
                { class: 'grow' },
                fabricName(f),
                f.label && VENDORS.has(f.vendorId) ? ` (${f.label})` : '',
              ),
              deleteButton(fabricName(f), () => remove(f)),
            ),
          ),
          t('matterNoControllers'),
        ),
      ),
    ]);
  }

  return draw;
}
