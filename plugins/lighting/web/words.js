// Household words for what the hub reports: no driver ids, no raw event names, no browser error texts.

const VENDOR_NAMES = new Map([
  ['mqtt', 'MQTT devices'],
  ['hue', 'Philips Hue bridge'],
  ['zigbee', 'Zigbee lights'],
  ['enocean', 'EnOcean switches'],
  ['virtual', 'Demo lights'],
]);

/** "MQTT devices", "Test devices": what a driver connects, by its vendor; its id is never shown. */
export function vendorName(vendor) {
  const known = VENDOR_NAMES.get(vendor);
  if (known) return known;
  const words = String(vendor).replace(/[-_]+/g, ' ');
  return `${words.charAt(0).toUpperCase()}${words.slice(1)} devices`;
}

// A Map: event names come from devices, and `constructor` must not find Object's.
const ACTIONS = new Map([
  ['single', 'pressed'],
  ['single_push', 'pressed'],
  ['short', 'pressed'],
  ['double', 'pressed twice'],
  ['double_push', 'pressed twice'],
  ['triple', 'pressed three times'],
  ['triple_push', 'pressed three times'],
  ['long', 'held'],
  ['hold', 'held'],
  ['long_push', 'held'],
  ['on', 'switched on'],
  ['off', 'switched off'],
  ['motion', 'saw motion'],
  ['open', 'opened'],
  ['close', 'closed'],
]);

const action = (name) => ACTIONS.get(name.toLowerCase()) ?? name.replace(/[-_]+/g, ' ');

/** `button1-single` → "button 1 pressed", `input0-long_push` → "input 1 held", `2` → "button 2 pressed". */
export function eventText(event) {
  const input = /^(button|switch|input)(\d+)-(.+)$/i.exec(event);
  if (input) {
    const kind = input[1].toLowerCase();
    // Shelly counts its inputs from 0; people count from 1.
    const n = kind === 'input' ? Number(input[2]) + 1 : Number(input[2]);
    return `${kind} ${n} ${action(input[3])}`;
  }
  if (/^\d+$/.test(event)) return `button ${event} pressed`;
  return action(event);
}

/** Why a light command did not work, in words; `name` is the light's. */
export function lightProblem(err, name) {
  if (err.offline) return 'Could not reach the hub. Check the Wi-Fi connection and try again.';
  switch (err.status) {
    case 404:
      return `“${name}” is no longer part of this home.`;
    case 409:
      return `“${name}” cannot be switched from this home.`;
    case 503:
      return `“${name}” cannot be reached: its connection to the hub is down.`;
    case 502:
    case 504:
      return `“${name}” did not respond. Try again in a moment.`;
    default:
      return `“${name}” could not be switched.`;
  }
}

/** Why a scene or group did not work, in words. */
export function actionProblem(err, what) {
  if (err.offline) return 'Could not reach the hub. Check the Wi-Fi connection and try again.';
  if (err.status === 404) return `This ${what} is no longer part of this home.`;
  return `The ${what} could not be switched.`;
}
