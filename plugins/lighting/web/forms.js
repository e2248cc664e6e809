// Form pieces the Set up and Schedules views share: a name field that saves on change, a one-field
// "make one" form and a delete button named after what it deletes.
import { t } from './i18n.js';
import { el } from './view.js';

/** A "Name" field that calls `rename(name)` with the trimmed text when it changes. */
export const nameField = (value, focus, rename) =>
  el(
    'label',
    { class: 'field grow' },
    t('name'),
    el('input', {
      type: 'text',
      value,
      maxlength: 64,
      'data-focus': focus,
      onchange: (e) => rename(e.target.value.trim()),
    }),
  );

/** A button whose accessible name says what it deletes ("Delete Kitchen"). */
export const deleteButton = (name, remove) =>
  el('button', { type: 'button', 'aria-label': t('deleteNamed', { name }), onclick: remove }, t('delete'));

/** A one-field form ("name" + button); `submit(name)` returns a promise; the field empties on success. */
export function nameForm(id, labelKey, buttonKey, submit) {
  const input = el('input', { type: 'text', id, required: true, maxlength: 64, 'data-focus': id });
  return el(
    'form',
    {
      class: 'form',
      onsubmit: async (e) => {
        e.preventDefault();
        const name = input.value.trim();
        if (!name) return;
        if (await submit(name)) input.value = '';
      },
    },
    el('label', { for: id }, t(labelKey)),
    input,
    el('button', { type: 'submit' }, t(buttonKey)),
  );
}
