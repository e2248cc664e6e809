// Set up, "Add devices": one button per driver connection opens its discovery (`POST /connection/discover`)
// with a countdown; devices the driver's answer lists that no light or sensor has yet can be added.
import { t } from './i18n.js';
import { heading, part } from './setup-part.js';
import { el, orEmpty } from './view.js';
import { vendorName } from './words.js';

/** How long pairing stays open (the driver's `discover`), in seconds. */
export const PAIRING_SECONDS = 60;

/** Builds the section into `node`; answers its draw function (`force` redraws even when nothing changed). */
export function pairingSection({ state, call, toast, save }, node) {
  /** `{driver, until, timer, found}` while a driver's discovery is open; `found` after it closed. */
  let pairing = null;
  const known = (vendor, protocolid) =>
    [...state.lights.values(), ...state.sensors].some(
      (x) => x.vendor === vendor && (x.protocolid ?? x[`${vendor}id`]) === protocolid,
    );

  function startPairing(connection) {
    const until = Date.now() + PAIRING_SECONDS * 1000;
    pairing = { driver: connection._id, vendor: connection.vendor, until, found: null };
    pairing.timer = setInterval(tick, 1000);
    toast(t('pairingStarted', { what: vendorName(connection.vendor), seconds: PAIRING_SECONDS }));
    drawPairing(true);
    call('POST', '/connection/discover', { _id: connection._id, duration: PAIRING_SECONDS })
      .then((answer) => finishPairing(answer.devices ?? []))
      .catch((err) => {
        finishPairing([]);
        toast(err.offline ? t('hubUnreachable') : t('pairingFailed'));
      });
  }

  function finishPairing(devices) {
    if (!pairing) return;
    clearInterval(pairing.timer);
    pairing.until = 0;
    pairing.found = devices;
    toast(t('pairingDone', { count: devices.length }));
    drawPairing(true);
  }

  function tick() {
    const left = document.getElementById('pairing-left');
    if (left && pairing?.until)
      left.textContent = t('secondsLeft', {
        seconds: Math.max(0, Math.ceil((pairing.until - Date.now()) / 1000)),
      });
  }

  function drawPairing(force = false) {
    const connections = [...state.connections.values()];
    const found = (pairing?.found ?? []).filter((d) => !known(pairing.vendor, d.protocolid));
    const signature = JSON.stringify([
      connections.map((c) => [c._id, c.vendor]),
      pairing?.driver,
      pairing?.until,
      found,
    ]);
    if (force) node.dataset.signature = '';
    part(node, signature, () => [
      heading('h-pairing', 'addDevices'),
      el('p', { class: 'muted' }, t('pairingHelp')),
      el(
        'div',
        { class: 'buttons' },
        ...orEmpty(
          connections.map((c, i) =>
            el(
              'button',
              {
                type: 'button',
                'data-pair': c._id,
                'data-focus': `pair-${i}`,
                disabled: Boolean(pairing?.until),
                onclick: () => startPairing(c),
              },
              t('searchOn', { what: vendorName(c.vendor) }),
            ),
          ),
          t('noConnections'),
          'p',
        ),
      ),
      ...(pairing?.until
        ? [
            el(
              'p',
              { class: 'listening' },
              t('searching'),
              ' ',
              // A countdown read out every second would chatter: it is not a live region.
              el(
                'span',
                { id: 'pairing-left' },
                t('secondsLeft', { seconds: Math.ceil((pairing.until - Date.now()) / 1000) }),
              ),
            ),
          ]
        : []),
      ...(found.length
        ? [
            el('h3', {}, t('foundDevices')),
            el(
              'ul',
              { class: 'rows' },
              ...found.map((d) =>
                el(
                  'li',
                  { 'data-found': d.protocolid },
                  el('span', { class: 'grow' }, d.name ?? d.protocolid),
                  el(
                    'button',
                    {
                      type: 'button',
                      onclick: () => addFound(d),
                      'aria-label': t('addNamed', { name: d.name ?? d.protocolid }),
                    },
                    t('add'),
                  ),
                ),
              ),
            ),
          ]
        : []),
    ]);
  }

  function addFound(d) {
    const vendor = pairing.vendor;
    const name = d.name ?? d.protocolid;
    const body =
      d.kind === 'sensor'
        ? {
            name,
            vendor,
            protocolid: d.protocolid,
            type: 'button',
            ...(d.events ? { events: d.events } : {}),
          }
        : { name, vendor, protocolid: d.protocolid, type: d.kind === 'binary' ? 'binary' : 'dimmable' };
    save(call('POST', d.kind === 'sensor' ? '/sensor' : '/light', body), t('added', { name })).then(() =>
      drawPairing(true),
    );
  }

  return drawPairing;
}
