// Set up, "Buttons and sensors": rename a sensor, and bind a button by pressing it — "Bind a button"
// listens on the live `eventSourceKey` events, the next press names the sensor and event, then the action
// is chosen and saved (`POST /sensor/action`). Bindings are listed and can be removed.
import { nameField } from './forms.js';
import { t } from './i18n.js';
import { actionOptions, describeAction } from './setup-actions.js';
import { heading, part } from './setup-part.js';
import { el, orEmpty } from './view.js';
import { eventText } from './words.js';

/** Builds the section into `node`; answers its draw function. */
export function buttonsSection({ app, state, call, toast, save }, node) {
  /** `null`, `{listening:true}` while waiting for a press, or `{sensor, event}` once one came. */
  let binding = null;
  app.events.addEventListener('eventSourceKey', (e) => {
    if (!binding?.listening) return;
    binding = { sensor: e.detail._id, name: e.detail.name, event: e.detail.event };
    toast(t('heard', { what: `${e.detail.name}: ${eventText(e.detail.event)}` }));
    buttons();
  });

  function buttons() {
    const signature = JSON.stringify([
      state.sensors.map((s) => [s._id, s.name, s.actions]),
      binding,
      state.scenes.length,
      state.groups.length,
      state.lights.size,
    ]);
    part(node, signature, () => {
      const bound = state.sensors.flatMap((s) =>
        Object.entries(s.actions ?? {}).flatMap(([event, list]) =>
          list.map((a) => ({ sensor: s, event, a })),
        ),
      );
      return [
        heading('h-buttons', 'buttons'),
        el(
          'ul',
          { class: 'rows', id: 'sensors' },
          ...state.sensors.map((sensor) =>
            el(
              'li',
              { 'data-setup-sensor': sensor._id },
              nameField(sensor.name, `sensor-name-${sensor._id}`, (name) =>
                save(call('PUT', '/sensor', { _id: sensor._id, name })),
              ),
            ),
          ),
        ),
        el(
          'ul',
          { class: 'rows', id: 'bindings' },
          ...orEmpty(
            bound.map(({ sensor, event, a }) =>
              el(
                'li',
                { 'data-binding': a.actionid },
                el(
                  'span',
                  { class: 'grow' },
                  `${sensor.name}: ${eventText(event)} → ${describeAction(state, a)}`,
                ),
                el(
                  'button',
                  {
                    type: 'button',
                    'aria-label': t('unbindNamed', { what: `${sensor.name}: ${eventText(event)}` }),
                    onclick: () =>
                      save(
                        call(
                          'DELETE',
                          `/sensor/${encodeURIComponent(sensor._id)}/action/${encodeURIComponent(a.actionid)}`,
                        ),
                        t('unbound'),
                      ),
                  },
                  t('remove'),
                ),
              ),
            ),
            t('noBindings'),
          ),
        ),
        ...bindControls(),
      ];
    });
  }

  /** "Bind a button"; while listening, the prompt and Cancel; after a press, the choice of action. */
  function bindControls() {
    if (!binding)
      return [
        el(
          'button',
          {
            type: 'button',
            id: 'bind',
            'data-focus': 'bind',
            onclick: () => {
              binding = { listening: true };
              toast(t('pressNow'));
              buttons();
            },
          },
          t('bindButton'),
        ),
      ];
    const cancel = el(
      'button',
      {
        type: 'button',
        onclick: () => {
          binding = null;
          buttons();
        },
      },
      t('cancel'),
    );
    if (binding.listening)
      return [
        el('p', { class: 'listening', id: 'listening' }, t('pressNow')),
        el('div', { class: 'buttons' }, cancel),
      ];
    const options = actionOptions(state);
    const select = el(
      'select',
      { id: 'bind-action', 'data-focus': 'bind-action' },
      ...options.map(([, text], i) => el('option', { value: i }, text)),
    );
    return [
      el('p', { class: 'listening' }, t('heard', { what: `${binding.name}: ${eventText(binding.event)}` })),
      el(
        'form',
        {
          class: 'form',
          onsubmit: async (e) => {
            e.preventDefault();
            const chosen = options[Number(select.value)];
            if (!chosen) return;
            if (
              await save(
                call('POST', '/sensor/action', {
                  _id: binding.sensor,
                  event: binding.event,
                  action: chosen[0],
                }),
                t('bound'),
              )
            ) {
              binding = null;
              buttons();
            }
          },
        },
        el('label', { for: 'bind-action' }, t('whatShouldHappen')),
        select,
        el('div', { class: 'buttons' }, el('button', { type: 'submit' }, t('saveBinding')), cancel),
      ),
    ];
  }

  return buttons;
}
