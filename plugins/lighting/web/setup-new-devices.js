// Set up, "New devices": lights and sensors a driver added that nobody accepted yet, each with Accept
// (`PUT /light|/sensor {"new": false}`) and Dismiss (deletes it).
import { t } from './i18n.js';
import { heading, part } from './setup-part.js';
import { el, orEmpty } from './view.js';

/** Builds the section into `node`; answers its draw function. */
export function newDevicesSection({ state, call, save }, node) {
  return function newDevices() {
    const fresh = [
      ...[...state.lights.values()].filter((l) => l.new).map((l) => ({ ...l, kind: 'light' })),
      ...state.sensors.filter((s) => s.new).map((s) => ({ ...s, kind: 'sensor' })),
    ];
    part(node, JSON.stringify(fresh.map((d) => [d._id, d.name])), () => [
      heading('h-new', 'newDevices'),
      el(
        'ul',
        { class: 'rows', id: 'new-devices' },
        ...orEmpty(
          fresh.map((d) =>
            el(
              'li',
              { 'data-new': d._id },
              el(
                'span',
                { class: 'grow' },
                `${d.name} `,
                el('small', { class: 'muted' }, t(d.kind === 'light' ? 'aLightKind' : 'aSensorKind')),
              ),
              el(
                'button',
                {
                  type: 'button',
                  'data-focus': `accept-${d._id}`,
                  'aria-label': t('acceptNamed', { name: d.name }),
                  onclick: () =>
                    save(
                      call('PUT', d.kind === 'light' ? '/light' : '/sensor', { _id: d._id, new: false }),
                      t('accepted', { name: d.name }),
                    ),
                },
                t('accept'),
              ),
              el(
                'button',
                {
                  type: 'button',
                  'aria-label': t('dismissNamed', { name: d.name }),
                  onclick: () =>
                    save(
                      call('DELETE', `/${d.kind}/${encodeURIComponent(d._id)}`),
                      t('dismissed', { name: d.name }),
                    ),
                },
                t('dismiss'),
              ),
            ),
          ),
          t('noNewDevices'),
        ),
      ),
    ]);
  };
}
