// The "Set up" view: everything a household sets up without a terminal, one section per module — new
// devices (accept or dismiss), pairing with a countdown, lights (rename, move to a room, favourite), rooms,
// scenes (including "save what the lights show now"), binding a button by pressing it, and the passwords
// of MQTT devices (setup-mqtt-credentials.js) and pairing with Apple Home, Google Home, Alexa over Matter
// (setup-matter.js). Each section
// is redrawn only when the data it shows changed (setup-part.js).
import { isFavourite, setFavourite } from './favourites.js';
import { t } from './i18n.js';
import { buttonsSection } from './setup-buttons.js';
import { lightsSection } from './setup-lights.js';
import { matterSection } from './setup-matter.js';
import { mqttCredentialsSection } from './setup-mqtt-credentials.js';
import { newDevicesSection } from './setup-new-devices.js';
import { pairingSection } from './setup-pairing.js';
import { roomsSection } from './setup-rooms.js';
import { scenesSection } from './setup-scenes.js';
import { el } from './view.js';
import { saveProblem } from './words.js';

export { PAIRING_SECONDS } from './setup-pairing.js';

/** The sections in page order, each with the id of its heading. */
const SECTIONS = [
  ['h-new', newDevicesSection],
  ['h-pairing', pairingSection],
  ['h-setup-lights', lightsSection],
  ['h-rooms', roomsSection],
  ['h-setup-scenes', scenesSection],
  ['h-buttons', buttonsSection],
  ['h-mqtt-credentials', mqttCredentialsSection],
  ['h-matter', matterSection],
];

export function setupView(app, root) {
  const { state, call, toast } = app;
  /** Sends a change; says `done` when it worked, the problem when not (then answers `null`). */
  const save = (p, done) =>
    p.then(
      (r) => {
        if (done) toast(done);
        return r;
      },
      (err) => {
        toast(saveProblem(err));
        return null;
      },
    );

  /** A "favourite" checkbox; favourites are kept on this device and shown first on the home view. */
  const favouriteBox = (kind, item) =>
    el(
      'label',
      { class: 'check' },
      el('input', {
        type: 'checkbox',
        'data-focus': `fav-${kind}-${item._id}`,
        checked: isFavourite(state.siteid, kind, item._id),
        onchange: (e) => {
          setFavourite(state.siteid, kind, item._id, e.target.checked);
          app.render();
        },
      }),
      ` ${t('favourite')}`,
    );

  /** What every section gets: the app, its parts spelled out, and the shared helpers. */
  const ctx = { app, state, call, toast, save, favouriteBox };
  const nodes = SECTIONS.map(([id]) => el('section', { 'aria-labelledby': id }));
  root.append(...nodes);
  const draws = SECTIONS.map(([, make], i) => make(ctx, nodes[i]));

  return {
    render() {
      for (const draw of draws) draw();
    },
  };
}
