// The building blocks every console page shares: the shell hands them to each page inside `api`, since a
// page module is served on its own and cannot import another page's code. One place means one behaviour:
// every failed action is announced the same way, every edit form returns the focus the same way.

/** `h` builds elements (no HTML strings); `say` writes to the polite live region. */
export function pageKit(h, say) {
  /** An event handler that runs `fn` and announces its failure as "<what>: <reason>". */
  const run = (what, fn) => async (e) => {
    e?.preventDefault?.();
    try {
      await fn(e);
    } catch (err) {
      say(`${what}: ${err.message}`, true);
    }
  };

  /** A button whose accessible name says what it acts on ("Delete Hall"), since a table has many "Delete". */
  const button = (text, label, fn) =>
    h('button', { type: 'button', 'aria-label': label, onclick: run(text, fn) }, text);

  const table = (caption, heads, body) =>
    h(
      'table',
      {},
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, ...heads.map((t) => h('th', { scope: 'col' }, t)))),
      body,
    );

  const label = (id, text) => h('label', { for: id }, text);

  /** A checkbox with its label beside it: [the box, the paragraph that holds both]. */
  const checkbox = (id, text, checked) => {
    const box = h('input', { id, type: 'checkbox', checked });
    return [box, h('p', {}, box, ' ', h('label', { for: id, class: 'inline' }, text))];
  };

  /** Save and Cancel for the form editing `what`; Save submits, Cancel calls `cancel`. */
  const saveCancel = (what, cancel) =>
    h(
      'p',
      {},
      h('button', { type: 'submit', 'aria-label': `Save ${what}` }, 'Save'),
      ' ',
      h(
        'button',
        { type: 'button', 'aria-label': `Cancel editing ${what}`, onclick: () => cancel() },
        'Cancel',
      ),
    );

  /**
   * Edit forms shown one at a time in `area`, pre-filled by the caller. `save` sends the change and
   * returns what to announce; then `reload` refreshes the page. A refused save leaves the form open with
   * the API's reason announced. After a save or a cancel the focus goes back to the button that opened
   * the form, whose accessible name is "<verb> <what>".
   */
  const editor =
    (area, reload) =>
    (what, fields, save, verb = 'Edit') => {
      const heading = h('h4', { id: `${area.id}-title`, tabindex: '-1' }, `${verb} ${what}`);
      const opener = `button[aria-label="${CSS.escape(`${verb} ${what}`)}"]`;
      const close = (said) => {
        const page = area.closest('#page-body') ?? document;
        area.replaceChildren();
        if (said) say(said);
        page.querySelector(opener)?.focus();
      };
      area.replaceChildren(
        h(
          'form',
          {
            'aria-labelledby': heading.id,
            onsubmit: run(`${verb} ${what}`, async () => {
              const said = await save();
              await reload();
              close(said);
            }),
          },
          heading,
          ...fields.flat(2),
          saveCancel(what, () => close()),
        ),
      );
      heading.focus();
    };

  /**
   * Turns a table cell into a one-field form that renames `name` in place. `save(value)` sends it and
   * returns what to announce; then `reload` redraws the list. A refused name keeps the form open with the
   * API's reason; Cancel puts the old name back. `noun` is what is renamed ("name", "label").
   */
  const rename = (cell, name, { noun = 'name', shown = name, save, reload, attrs = {} }) => {
    const input = h('input', { ...attrs, value: shown, 'aria-label': `New ${noun} of ${name}` });
    const keep = () => {
      cell.replaceChildren(shown);
      say(`${name} unchanged.`);
    };
    cell.replaceChildren(
      h(
        'form',
        {
          class: 'inline',
          onsubmit: async (e) => {
            e.preventDefault();
            try {
              const said = await save(input.value);
              say(said);
              await reload();
            } catch (err) {
              say(err.message, true);
              input.focus();
            }
          },
        },
        input,
        h('button', { type: 'submit', 'aria-label': `Save the ${noun} of ${name}` }, 'Save'),
        h('button', { type: 'button', 'aria-label': `Keep the ${noun} of ${name}`, onclick: keep }, 'Cancel'),
      ),
    );
    input.focus();
    input.select();
  };

  /** A text area holding `value` (a textarea's text is its value, not an attribute). */
  const textarea = (attrs, value) => {
    const t = h('textarea', { rows: 3, cols: 50, ...attrs });
    t.value = value;
    return t;
  };

  /** Words of a free-text field (space or comma separated), as lists are sent. */
  const words = (text) => text.split(/[\s,]+/).filter(Boolean);

  return { run, button, table, label, checkbox, textarea, saveCancel, editor, rename, words };
}
