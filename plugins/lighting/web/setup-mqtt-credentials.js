// Set up, "Device passwords": the user names and passwords this home's MQTT bulbs and switches log in to
// the hub with (`/mqtt/credentials` of the site API, the MQTT plugin's). A password is made by the hub and
// shown once, right here; a device that lost it gets a new user name. Shown only when the site has an MQTT
// connection and the app may manage the site (the site key or a `site:admin` token).
import { deleteButton } from './forms.js';
import { t } from './i18n.js';
import { heading, part } from './setup-part.js';
import { el, orEmpty } from './view.js';

/** Builds the section into `node`; answers its draw function. */
export function mqttCredentialsSection({ state, call, toast, save }, node) {
  /** The site's credentials once loaded; null while unknown, or when this app may not manage them. */
  let credentials = null;
  /** `{username, password}` just made: shown until another is made or the view is left. */
  let made = null;
  let loading = false;

  const hasMqtt = () => [...state.connections.values()].some((c) => c.vendor === 'mqtt');

  function load() {
    if (loading) return;
    loading = true;
    call('GET', '/mqtt/credentials').then(
      (list) => {
        loading = false;
        credentials = list;
        draw();
      },
      () => {
        // No MQTT plugin, or a token without site:admin: the section stays hidden.
        loading = false;
        credentials = null;
        node.hidden = true;
      },
    );
  }

  async function create(username) {
    const answer = await save(
      call('POST', '/mqtt/credentials', { username }),
      t('credentialMade', { name: username }),
    );
    if (!answer) return false;
    made = { username: answer.username, password: answer.password };
    credentials = [...(credentials ?? []).filter((c) => c.username !== answer.username), answer];
    draw();
    document.getElementById('made-password')?.focus();
    return true;
  }

  async function remove(username) {
    // A refusal is said by `save` (a toast); only a removal the hub answered changes the list.
    const removed = await call('DELETE', `/mqtt/credentials/${encodeURIComponent(username)}`).then(
      () => true,
      (err) => save(Promise.reject(err)).then(() => false),
    );
    if (!removed) return;
    toast(t('deleted', { name: username }));
    credentials = (credentials ?? []).filter((c) => c.username !== username);
    if (made?.username === username) made = null;
    draw();
  }

  function form() {
    const input = el('input', {
      type: 'text',
      id: 'new-credential',
      required: true,
      maxlength: 64,
      pattern: '[A-Za-z0-9._\\-]{1,64}',
      autocomplete: 'off',
      spellcheck: 'false',
      'aria-describedby': 'new-credential-hint',
      'data-focus': 'new-credential',
    });
    return el(
      'form',
      {
        class: 'form',
        onsubmit: async (e) => {
          e.preventDefault();
          const username = input.value.trim();
          if (!username) return;
          if (await create(username)) input.value = '';
        },
      },
      el('label', { for: 'new-credential' }, t('deviceUserName')),
      input,
      el('small', { id: 'new-credential-hint', class: 'muted' }, t('deviceUserNameHint')),
      el('button', { type: 'submit' }, t('makePassword')),
    );
  }

  function draw() {
    if (!hasMqtt()) {
      node.hidden = true;
      return;
    }
    if (credentials === null) {
      load();
      return;
    }
    node.hidden = false;
    const signature = JSON.stringify([credentials.map((c) => [c.username, c.topics]), made]);
    part(node, signature, () => [
      heading('h-mqtt-credentials', 'devicePasswords'),
      el('p', { class: 'muted' }, t('devicePasswordsHelp')),
      ...(made
        ? [
            el(
              'div',
              { class: 'made-password', id: 'made-password', tabindex: -1, role: 'status' },
              el('p', {}, t('passwordFor', { name: made.username })),
              el('code', { 'data-password': made.username }, made.password),
              el('p', { class: 'muted' }, t('passwordShownOnce')),
            ),
          ]
        : []),
      el(
        'ul',
        { class: 'rows', id: 'mqtt-credentials' },
        ...orEmpty(
          credentials.map((c) =>
            el(
              'li',
              { 'data-credential': c.username },
              el('span', { class: 'grow' }, c.username),
              deleteButton(c.username, () => remove(c.username)),
            ),
          ),
          t('noDevicePasswords'),
        ),
      ),
      form(),
    ]);
  }

  return draw;
}
