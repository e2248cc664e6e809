// Colour controls of a light card, for lights whose `capabilities` have them: a colour-temperature slider
// (in Kelvin, warm on the left) and a colour picker. The page sends what the person chose (`kelvin`,
// `hex`); the hub converts it and clips it to what the light can show. The card's swatch shows the
// colour the hub confirmed.
import { blackBodyXy } from './blackbody.js';
import { t } from './i18n.js';
import { el } from './view.js';

const kelvinOf = (mirek) => Math.round(1e6 / mirek / 50) * 50;

/** Words for a colour temperature, as lamp boxes say them. */
export function whiteText(kelvin) {
  const kind = kelvin < 3000 ? 'warmWhite' : kelvin < 4500 ? 'neutralWhite' : 'daylight';
  return `${kelvin} K, ${t(kind)}`;
}

/** An xy chromaticity as a CSS colour: CIE XYZ at a fixed luminance, mapped to the screen by the browser. */
function xyColour([x, y]) {
  const Y = 0.6;
  return `color(xyz-d65 ${((x / y) * Y).toFixed(4)} ${Y} ${(((1 - x - y) / y) * Y).toFixed(4)})`;
}

/**
 * The confirmed colour as a CSS colour: a colour's xy, or for a light showing white (colour-temperature
 * mode, or a white-only light) the colour of a black body at its temperature.
 */
export function cssColour(light) {
  if (light.colormode === 'xy' && Array.isArray(light.xy) && light.xy[1] > 0) return xyColour(light.xy);
  if (typeof light.ct === 'number' && light.ct > 0) return xyColour(blackBodyXy(light.ct));
  return '';
}

let canvas;
/** `#rrggbb` of a CSS colour, as the browser paints it (for the colour picker's value). */
function hexOf(css) {
  canvas ??= document.createElement('canvas');
  canvas.width = canvas.height = 1;
  const g = canvas.getContext('2d', { willReadFrequently: true });
  g.clearRect(0, 0, 1, 1);
  g.fillStyle = '#000';
  g.fillStyle = css;
  g.fillRect(0, 0, 1, 1);
  const [r, gr, b] = g.getImageData(0, 0, 1, 1).data;
  return `#${[r, gr, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
}

/** Which colour controls a light needs: cards are rebuilt when this changes. */
export const colourKind = (light) =>
  `${light.capabilities?.ct ? 'ct' : ''}${light.capabilities?.xy ? 'xy' : ''}`;

/** The controls for one card; `act.colour(id, {kelvin} | {hex})` sends a choice. */
export function colourControls(light, act, card) {
  const out = [];
  const caps = light.capabilities ?? {};
  if (caps.ct) {
    const slider = el('input', {
      type: 'range',
      class: 'ct',
      min: kelvinOf(caps.ct.max),
      max: kelvinOf(caps.ct.min),
      step: 50,
      'aria-label': t('colourTemperatureOf', { name: light.name }),
      onpointerdown: () => {
        card.dataset.dragging = '1';
      },
      oninput: (e) => e.target.setAttribute('aria-valuetext', whiteText(Number(e.target.value))),
      onchange: (e) => {
        delete card.dataset.dragging;
        act.colour(light._id, { kelvin: Number(e.target.value) });
      },
      onpointerup: () => delete card.dataset.dragging,
      onpointercancel: () => delete card.dataset.dragging,
    });
    out.push(slider);
  }
  if (caps.xy) {
    out.push(
      el('input', {
        type: 'color',
        class: 'xy',
        'aria-label': t('colourOf', { name: light.name }),
        onchange: (e) => act.colour(light._id, { hex: e.target.value }),
      }),
    );
  }
  return out;
}

/** Shows the confirmed colour on the swatch and, unless a finger holds them, on the controls. */
export function updateColour(card, light) {
  const swatch = card.querySelector('.swatch');
  if (!swatch) return;
  const css = cssColour(light);
  swatch.hidden = !css;
  swatch.style.setProperty('--swatch', css || 'transparent');
  const words =
    light.colormode === 'xy'
      ? t('colour')
      : typeof light.ct === 'number'
        ? whiteText(kelvinOf(light.ct))
        : '';
  swatch.setAttribute('aria-label', `${light.name}: ${words || t('colourUnknown')}`);
  swatch.title = words;
  // A renamed light: its colour controls are named after it too.
  card.querySelector('input.ct')?.setAttribute('aria-label', t('colourTemperatureOf', { name: light.name }));
  card.querySelector('input.xy')?.setAttribute('aria-label', t('colourOf', { name: light.name }));
  if (card.dataset.dragging) return;
  const ct = card.querySelector('input.ct');
  if (ct && typeof light.ct === 'number') {
    ct.value = String(kelvinOf(light.ct));
    ct.setAttribute('aria-valuetext', whiteText(kelvinOf(light.ct)));
  }
  // The picker shows what the light shows: its colour, or the white of its colour temperature (an input
  // of type color holds a colour at all times; left alone it would show black).
  const picker = card.querySelector('input.xy');
  if (picker && css && document.activeElement !== picker) picker.value = hexOf(css);
}
