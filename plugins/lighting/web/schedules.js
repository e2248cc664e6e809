// The schedules view: the site's schedules (switch on/off, edit, delete, next run) and a form for a new
// or changed one — a time of day or sunrise/sunset with an offset, weekdays, and a scene, a room or a
// light at a level. The site's location (for sunrise and sunset) is set here once.
import { deleteButton } from './forms.js';
import { lang, t } from './i18n.js';
import { el, orEmpty } from './view.js';
import { saveProblem } from './words.js';

// Monday first, as calendars in English- and German-speaking Europe show weeks; the API's names.
const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

const when = (iso) =>
  iso
    ? new Date(iso).toLocaleString(lang, {
        weekday: 'short',
        hour: '2-digit',
        minute: '2-digit',
        day: 'numeric',
        month: 'short',
      })
    : t('never');

export function schedulesView(app, root) {
  const { state, call, toast } = app;
  let schedules = [];
  let location = { latitude: null, longitude: null };
  let editing = null; // the schedule in the form, or null for a new one

  const listNode = el('ul', { class: 'rows', id: 'schedule-list' });
  const formNode = el('div');
  const placeNode = el('div');
  root.append(
    el(
      'section',
      { 'aria-labelledby': 'h-schedules' },
      el('h2', { id: 'h-schedules' }, t('navSchedules')),
      listNode,
    ),
    el('section', { 'aria-labelledby': 'h-schedule-form' }, formNode),
    el('section', { 'aria-labelledby': 'h-location' }, placeNode),
  );

  async function load() {
    try {
      [schedules, location] = await Promise.all([call('GET', '/schedule'), call('GET', '/location')]);
    } catch (err) {
      toast(saveProblem(err));
    }
    drawList();
    drawPlace();
    drawForm();
  }
  app.events.addEventListener('scheduleRan', (e) => {
    toast(t('scheduleRan', { name: e.detail.name }));
    load();
  });

  function describe(s) {
    const time =
      s.at ??
      t(s.sun.offset ? 'sunOffset' : s.sun.event, {
        event: t(s.sun.event),
        offset: s.sun.offset > 0 ? `+${s.sun.offset}` : s.sun.offset,
      });
    const days =
      s.days.length === 7
        ? t('everyDay')
        : DAYS.filter((d) => s.days.includes(d))
            .map((d) => t(`day_${d}`))
            .join(', ');
    return `${time} · ${days} · ${actionText(s.action)}`;
  }

  function actionText(a) {
    const name = (list, id) => list.find((x) => x._id === id)?.name ?? '?';
    if (a.type === 'scene') return t('actScene', { name: name(state.scenes, a._id) });
    const target = a.type === 'group' ? name(state.groups, a._id) : (state.lights.get(a._id)?.name ?? '?');
    return a.on
      ? t('actLevel', { name: target, level: `${Math.round((a.bri * 100) / 255)} %` })
      : t('actLightOff', { name: target });
  }

  function drawList() {
    listNode.replaceChildren(
      ...orEmpty(
        schedules.map((s) =>
          el(
            'li',
            { 'data-schedule': s._id },
            el('input', {
              type: 'checkbox',
              role: 'switch',
              checked: s.enabled,
              'aria-label': t('scheduleOn', { name: s.name }),
              onchange: (e) => change(call('PUT', '/schedule', { _id: s._id, enabled: e.target.checked })),
            }),
            el(
              'span',
              { class: 'grow' },
              el('strong', {}, s.name),
              el('br'),
              describe(s),
              el('br'),
              el('small', { class: 'muted' }, t('nextRun', { when: when(s.next) })),
              ...(s.lastrun
                ? [el('small', { class: 'muted' }, ` · ${t('lastRun', { when: when(s.lastrun.at) })}`)]
                : []),
            ),
            el(
              'button',
              {
                type: 'button',
                'aria-label': t('editNamed', { name: s.name }),
                onclick: () => {
                  editing = s;
                  drawForm();
                  document.getElementById('schedule-name')?.focus();
                },
              },
              t('edit'),
            ),
            deleteButton(s.name, () =>
              change(
                call('DELETE', `/schedule/${encodeURIComponent(s._id)}`),
                t('deleted', { name: s.name }),
              ),
            ),
          ),
        ),
        t('noSchedules'),
      ),
    );
  }

  async function change(p, done) {
    try {
      await p;
      if (done) toast(done);
      return true;
    } catch (err) {
      toast(saveProblem(err));
      return false;
    } finally {
      await load();
    }
  }

  /** Targets a schedule can switch: value = JSON of the action without its level. */
  function targets() {
    return [
      ...state.scenes.map((s) => [
        JSON.stringify({ type: 'scene', _id: s._id }),
        t('actScene', { name: s.name }),
      ]),
      ...state.groups.map((g) => [
        JSON.stringify({ type: 'group', _id: g._id }),
        t('roomNamed', { name: g.name }),
      ]),
      ...[...state.lights.values()].map((l) => [JSON.stringify({ type: 'light', _id: l._id }), l.name]),
    ];
  }

  function drawForm() {
    const s = editing;
    const field = (id, label, input) => el('div', { class: 'field' }, el('label', { for: id }, label), input);
    const name = el('input', {
      type: 'text',
      id: 'schedule-name',
      required: true,
      maxlength: 64,
      value: s?.name ?? '',
    });
    const kind = el(
      'select',
      { id: 'schedule-kind', onchange: () => showKind() },
      ...['time', 'sunrise', 'sunset'].map((k) =>
        el('option', { value: k, selected: (s?.sun?.event ?? 'time') === k }, t(`kind_${k}`)),
      ),
    );
    const time = el('input', { type: 'time', id: 'schedule-time', value: s?.at ?? '07:00' });
    const offset = el('input', {
      type: 'number',
      id: 'schedule-offset',
      min: -180,
      max: 180,
      step: 1,
      value: s?.sun?.offset ?? 0,
    });
    const timeField = field('schedule-time', t('timeOfDay'), time);
    const offsetField = field('schedule-offset', t('offsetMinutes'), offset);
    const showKind = () => {
      timeField.hidden = kind.value !== 'time';
      offsetField.hidden = kind.value === 'time';
    };
    showKind();
    const dayBoxes = DAYS.map((d) =>
      el('input', { type: 'checkbox', value: d, checked: s ? s.days.includes(d) : true }),
    );
    const options = targets();
    const current = s ? JSON.stringify({ type: s.action.type, _id: s.action._id }) : '';
    const target = el(
      'select',
      { id: 'schedule-target', onchange: () => showLevel() },
      ...options.map(([value, text]) => el('option', { value, selected: value === current }, text)),
    );
    const level = el('input', {
      type: 'range',
      id: 'schedule-level',
      min: 0,
      max: 255,
      value: s?.action?.bri ?? 255,
    });
    const levelField = field('schedule-level', t('level'), level);
    const showLevel = () => {
      levelField.hidden = target.value.includes('"scene"');
    };
    showLevel();
    formNode.replaceChildren(
      el('h2', { id: 'h-schedule-form' }, s ? t('editSchedule', { name: s.name }) : t('newSchedule')),
      el(
        'form',
        {
          class: 'form',
          onsubmit: async (e) => {
            e.preventDefault();
            if (!target.value) return toast(t('chooseTarget'));
            const base = JSON.parse(target.value);
            const bri = Number(level.value);
            const body = {
              name: name.value.trim(),
              days: dayBoxes.filter((b) => b.checked).map((b) => b.value),
              action: base.type === 'scene' ? base : { ...base, on: bri > 0, bri },
              ...(kind.value === 'time'
                ? { at: time.value }
                : { sun: { event: kind.value, offset: Number(offset.value) } }),
            };
            const ok = await change(
              s ? call('PUT', '/schedule', { _id: s._id, ...body }) : call('POST', '/schedule', body),
              t('scheduleSaved', { name: body.name }),
            );
            if (ok) {
              editing = null;
              drawForm();
            }
          },
        },
        field('schedule-name', t('name'), name),
        field('schedule-kind', t('when'), kind),
        timeField,
        offsetField,
        el(
          'fieldset',
          { class: 'days' },
          el('legend', {}, t('days')),
          ...dayBoxes.map((b) => el('label', {}, b, ` ${t(`day_${b.value}`)}`)),
        ),
        field('schedule-target', t('whatShouldHappen'), target),
        levelField,
        el(
          'div',
          { class: 'buttons' },
          el('button', { type: 'submit' }, t('saveSchedule')),
          ...(s
            ? [
                el(
                  'button',
                  {
                    type: 'button',
                    onclick: () => {
                      editing = null;
                      drawForm();
                    },
                  },
                  t('cancel'),
                ),
              ]
            : []),
        ),
      ),
    );
  }

  function drawPlace() {
    const lat = el('input', {
      type: 'number',
      id: 'latitude',
      step: 'any',
      min: -90,
      max: 90,
      value: location.latitude ?? '',
    });
    const lon = el('input', {
      type: 'number',
      id: 'longitude',
      step: 'any',
      min: -180,
      max: 180,
      value: location.longitude ?? '',
    });
    placeNode.replaceChildren(
      el('h2', { id: 'h-location' }, t('location')),
      el('p', { class: 'muted' }, t('locationHelp')),
      el(
        'form',
        {
          class: 'form',
          onsubmit: (e) => {
            e.preventDefault();
            change(
              call('PUT', '/location', { latitude: Number(lat.value), longitude: Number(lon.value) }),
              t('locationSaved'),
            );
          },
        },
        el('div', { class: 'field' }, el('label', { for: 'latitude' }, t('latitude')), lat),
        el('div', { class: 'field' }, el('label', { for: 'longitude' }, t('longitude')), lon),
        el('button', { type: 'submit' }, t('saveLocation')),
      ),
    );
  }

  return {
    open: load,
    // The list names scenes, rooms and lights: redrawn when they change, the form only when opened.
    render() {
      const names = JSON.stringify([
        state.scenes.map((s) => s.name),
        state.groups.map((g) => g.name),
        [...state.lights.values()].map((l) => l.name),
      ]);
      if (root.dataset.names === names) return;
      root.dataset.names = names;
      drawList();
      if (!root.contains(document.activeElement)) drawForm();
    },
  };
}
