// Household words for what the hub reports: no driver ids, no raw event names, no browser error texts.
import { t } from './i18n.js';

// Maps: names come from drivers and devices, and `constructor` must not find Object's.
const VENDOR_NAMES = new Map([
  ['mqtt', 'vendorMqtt'],
  ['hue', 'vendorHue'],
  ['zigbee', 'vendorZigbee'],
  ['enocean', 'vendorEnocean'],
  ['virtual', 'vendorVirtual'],
]);

/** "MQTT devices", "Test devices": what a driver connects, by its vendor; its id is never shown. */
export function vendorName(vendor) {
  const known = VENDOR_NAMES.get(vendor);
  if (known) return t(known);
  const words = String(vendor).replace(/[-_]+/g, ' ');
  return t('vendorOther', { name: `${words.charAt(0).toUpperCase()}${words.slice(1)}` });
}

const ACTIONS = new Map([
  ['single', 'evPressed'],
  ['single_push', 'evPressed'],
  ['short', 'evPressed'],
  ['double', 'evTwice'],
  ['double_push', 'evTwice'],
  ['triple', 'evThrice'],
  ['triple_push', 'evThrice'],
  ['long', 'evHeld'],
  ['hold', 'evHeld'],
  ['long_push', 'evHeld'],
  ['on', 'evOn'],
  ['off', 'evOff'],
  ['motion', 'evMotion'],
  ['open', 'evOpened'],
  ['close', 'evClosed'],
]);

const action = (name) => {
  const key = ACTIONS.get(name.toLowerCase());
  return key ? t(key) : name.replace(/[-_]+/g, ' ');
};

/** `button1-single` → "button 1 pressed", `input0-long_push` → "input 1 held", `2` → "button 2 pressed". */
export function eventText(event) {
  const input = /^(button|switch|input)(\d+)-(.+)$/i.exec(event);
  if (input) {
    const kind = input[1].toLowerCase();
    // Shelly counts its inputs from 0; people count from 1.
    const n = kind === 'input' ? Number(input[2]) + 1 : Number(input[2]);
    return `${t(`kind_${kind}`)} ${n} ${action(input[3])}`;
  }
  if (/^\d+$/.test(event)) return `${t('kind_button')} ${event} ${t('evPressed')}`;
  return action(event);
}

/** Why a light command did not work, in words; `name` is the light's. */
export function lightProblem(err, name) {
  if (err.offline) return t('hubUnreachable');
  switch (err.status) {
    case 404:
      return t('lightGone', { name });
    case 409:
      return t('lightNotSwitchable', { name });
    case 503:
      return t('lightLinkDown', { name });
    case 502:
    case 504:
      return t('lightNoAnswer', { name });
    default:
      return t('lightFailed', { name });
  }
}

/** Why a setup change was refused: the hub's own message names the field; offline said in words. */
export function saveProblem(err) {
  if (err.offline) return t('hubUnreachable');
  return t('notSaved', { reason: err.message });
}
