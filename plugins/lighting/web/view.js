// DOM pieces of the lighting page. Light cards are kept and updated in place, keyed by light id, so a
// live update never replaces the slider or switch under a finger that is using it.
import { colourControls, colourKind, updateColour } from './colour.js';
import { t } from './i18n.js';
import { eventText, vendorName } from './words.js';

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (v !== false && v !== undefined) node.setAttribute(k, v === true ? '' : String(v));
  }
  node.append(...children);
  return node;
}

/** The list's items, or one muted line saying what is missing (a first-run page is never blank). */
export const orEmpty = (items, text, tag = 'li') =>
  items.length ? items : [el(tag, { class: 'muted' }, text)];

const percent = (bri) => `${Math.max(1, Math.round((bri * 100) / 255))} %`;
const levelText = (light) =>
  light.on ? (light.type === 'dimmable' ? percent(light.bri) : t('on')) : t('off');
/** What a command not confirmed yet is doing. */
const pendingText = (light, level) =>
  !level.on
    ? t('switchingOff')
    : light.type === 'dimmable' && light.on
      ? t('setting', { level: percent(level.bri) })
      : t('switchingOn');
/** A slider's value for screen readers: a percentage, as the label shows it. */
const sliderText = (bri) => (bri > 0 ? percent(bri) : t('off'));

/**
 * Keyboard steps of the brightness slider, on its 0–255 scale: about 5 % per arrow key and 25 % per
 * PageUp/PageDown (one unit per key, a range input's own step, is 0.4 %: a dozen presses for a visible
 * change). Home and End keep their own meaning (off, full).
 */
const KEY_STEPS = { ArrowRight: 13, ArrowUp: 13, ArrowLeft: -13, ArrowDown: -13, PageUp: 64, PageDown: -64 };

/** Moves a range input by its key step and tells it as the input itself would (input, then change). */
function stepByKey(e) {
  const step = Object.hasOwn(KEY_STEPS, e.key) ? KEY_STEPS[e.key] : 0;
  if (!step || e.altKey || e.ctrlKey || e.metaKey) return;
  e.preventDefault();
  const s = e.target;
  const next = Math.min(Number(s.max), Math.max(Number(s.min), Number(s.value) + step));
  if (next === Number(s.value)) return;
  s.value = String(next);
  s.dispatchEvent(new Event('input', { bubbles: true }));
  s.dispatchEvent(new Event('change', { bubbles: true }));
}

/**
 * A light card: name, level, an on/off switch and, for dimmable lights, a brightness slider.
 * `act.toggle(id, on)` and `act.dim(id, bri)` send the commands.
 */
export function lightCard(light, act) {
  const toggle = el('input', {
    type: 'checkbox',
    role: 'switch',
    'aria-label': t('lightOn', { name: light.name }),
    onchange: (e) => act.toggle(light._id, e.target.checked),
  });
  // Not a live region: every change by anyone in the home would be read out; the switch and slider
  // carry the state for screen readers.
  const level = el('span', { class: 'level' });
  const card = el(
    'li',
    { 'data-light': light._id, class: 'light' },
    el(
      'span',
      {},
      ...(colourKind(light) ? [el('span', { class: 'swatch', role: 'img' }), ' '] : []),
      el('span', { class: 'name' }, light.name),
      ' ',
      // Added by discovery and not accepted yet (`PUT /light {"new": false}` clears it).
      el('span', { class: 'badge new', title: t('newTitle') }, t('new')),
    ),
    level,
    toggle,
  );
  if (light.type === 'dimmable') {
    const slider = el('input', {
      type: 'range',
      min: 0,
      max: 255,
      'aria-label': t('lightBrightness', { name: light.name }),
      onkeydown: stepByKey,
      // While a finger holds the slider, live updates leave its value alone; the label follows the finger.
      onpointerdown: () => {
        card.dataset.dragging = '1';
      },
      oninput: (e) => {
        level.textContent = sliderText(Number(e.target.value));
        e.target.setAttribute('aria-valuetext', sliderText(Number(e.target.value)));
      },
      onchange: (e) => {
        delete card.dataset.dragging;
        act.dim(light._id, Number(e.target.value));
      },
      // A touch that moved nothing fires no change event: the slider must not stay frozen.
      onpointerup: () => delete card.dataset.dragging,
      onpointercancel: () => delete card.dataset.dragging,
    });
    card.append(slider);
  }
  card.append(...colourControls(light, act, card));
  card.dataset.colour = colourKind(light);
  updateLightCard(card, light);
  return card;
}

/**
 * Shows the level the hub confirmed; while a command waits for confirmation (`light.pending`), the controls
 * show the level asked for, marked busy, and go back to the confirmed level if it never comes.
 */
export function updateLightCard(card, light) {
  const shown = light.pending ?? light;
  card.classList.toggle('lit', light.on);
  card.classList.toggle('pending', Boolean(light.pending));
  card.setAttribute('aria-busy', String(Boolean(light.pending)));
  card.querySelector('.name').textContent = light.name;
  // A renamed light: its controls are named after it too.
  card.querySelector('input[role=switch]').setAttribute('aria-label', t('lightOn', { name: light.name }));
  card
    .querySelector('input[type=range]:not(.ct)')
    ?.setAttribute('aria-label', t('lightBrightness', { name: light.name }));
  card.querySelector('.badge.new').hidden = !light.new;
  card.querySelector('input[role=switch]').checked = shown.on;
  updateColour(card, light);
  const slider = card.querySelector('input[type=range]:not(.ct)');
  if (!card.dataset.dragging) {
    card.querySelector('.level').textContent = light.pending
      ? pendingText(light, light.pending)
      : levelText(light);
    if (slider) {
      slider.value = String(shown.bri);
      slider.setAttribute('aria-valuetext', sliderText(shown.bri));
    }
  }
}

/**
 * Keeps the children of `list` in step with `items` (objects with `_id`), reusing the element each id
 * already has (`data-<key>`), so a tap that started on a button or a slider is not lost to a live update.
 * `fits(node, item)` says whether an existing element can show the item; otherwise `make` builds anew.
 */
export function syncKeyed(list, items, { key, make, update, fits = () => true, empty, emptyTag = 'li' }) {
  const attr = `data-${key}`;
  const existing = new Map(
    [...list.children].filter((c) => c.hasAttribute(attr)).map((c) => [c.getAttribute(attr), c]),
  );
  const nodes = items.map((item) => {
    const node = existing.get(item._id);
    if (!node || !fits(node, item)) return make(item);
    update(node, item);
    return node;
  });
  const wanted = orEmpty(nodes, empty, emptyTag);
  // Only touch the DOM when the order or the set of elements changed, so focus and drags survive.
  const same = wanted.length === list.children.length && wanted.every((c, i) => list.children[i] === c);
  if (!same) list.replaceChildren(...wanted);
}

export function syncLightCards(list, lights, act, empty = t('noLights')) {
  syncKeyed(list, lights, {
    key: 'light',
    make: (light) => lightCard(light, act),
    update: updateLightCard,
    // A changed type (binary ↔ dimmable) needs a different card: rebuild it.
    fits: (card, light) =>
      Boolean(card.querySelector('input[type=range]:not(.ct)')) === (light.type === 'dimmable') &&
      (card.dataset.colour ?? '') === colourKind(light),
    empty,
  });
}

/** Scene buttons: `apply(id)` applies one. */
export function syncSceneButtons(list, scenes, apply) {
  syncKeyed(list, scenes, {
    key: 'scene',
    make: (s) => el('button', { type: 'button', 'data-scene': s._id, onclick: () => apply(s._id) }, s.name),
    update: (node, s) => {
      node.textContent = s.name;
    },
    empty: t('noScenes'),
    emptyTag: 'p',
  });
}

/**
 * Group buttons with their on/off state (any member on); `toggle(id)` toggles one. The accessible name is the
 * group's name alone; its state is `aria-pressed` (the visible "on"/"off" line is hidden from screen
 * readers, which would otherwise read "Downstairson").
 */
export function syncGroupButtons(list, groups, isOn, toggle) {
  const update = (node, g) => {
    const on = isOn(g);
    node.classList.toggle('lit', on);
    node.setAttribute('aria-pressed', String(on));
    node.firstChild.textContent = g.name;
    node.lastChild.textContent = on ? t('on') : t('off');
  };
  syncKeyed(list, groups, {
    key: 'group',
    make: (g) => {
      const node = el(
        'button',
        { 'data-group': g._id, onclick: () => toggle(g._id) },
        el('span'),
        el('small', { 'aria-hidden': 'true' }),
      );
      update(node, g);
      return node;
    },
    update,
    empty: t('noRooms'),
    emptyTag: 'p',
  });
}

/**
 * A driver's link, named by what it connects ("MQTT devices"), numbered when a home has several of a kind;
 * its id is for the hub, not for the household.
 */
export function connectionItem(c, all = [c]) {
  const same = all.filter((x) => x.vendor === c.vendor);
  const nth = same.length > 1 ? ` ${same.indexOf(c) + 1}` : '';
  return el(
    'li',
    { 'data-connection': c._id, class: c.connected ? 'connected' : 'disconnected' },
    el('span', { class: 'dot', 'aria-hidden': 'true' }),
    t(c.connected ? 'connected' : 'notConnected', { what: `${vendorName(c.vendor)}${nth}` }),
  );
}

export function eventItem(e) {
  const at = new Date(e.at).toLocaleTimeString(document.documentElement.lang, {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  return el('li', {}, el('time', { datetime: e.at }, at), ` ${e.name}: ${eventText(e.event)}`);
}
