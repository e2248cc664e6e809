// "Set up": the first steps after claiming the hub, each skippable and here to come back to (name the home
// and its place, find devices, invite the household, turn on the assistants), then the owner's own
// settings. Every step calls the admin API of the plugin it concerns; a step whose plugin is not running
// says so. Which steps were done or skipped is remembered in this browser only.
export async function render(root, api) {
  const owner = await api.get('/console/owner');
  const sites = await api.get('/sites').catch(() => null);
  let site = sites?.[0] ?? null;
  const ctx = { api, site: () => site, setSite: (s) => (site = s) };
  const steps = [homeStep, devicesStep, inviteStep, await assistantsStep(api)].filter(Boolean);
  const { h } = api;
  root.append(
    h('p', {}, 'A few steps to make this hub yours. Skip any of them; they stay here for later.'),
    h(
      'ol',
      { class: 'steps' },
      steps.map((step, i) => h('li', {}, section(ctx, step, steps[i + 1]?.id))),
    ),
    ownerSection(api, owner),
  );
}

const remembered = (id) => localStorage.getItem(`hearth.setup.${id}`);
const remember = (id, state) => localStorage.setItem(`hearth.setup.${id}`, state);

/** One step: its heading with its state, its body, and "Skip" (which moves on to the next step). */
function section(ctx, step, nextId) {
  const { h } = ctx.api;
  const state = h('span', { class: 'step-state' }, stateText(remembered(step.id)));
  const mark = (s) => {
    remember(step.id, s);
    state.textContent = stateText(s);
  };
  const next = () => document.getElementById(`step-${nextId ?? 'owner'}`)?.focus();
  const body = h('div', {});
  step.render(body, { ...ctx, done: () => mark('done') });
  return h(
    'section',
    { 'aria-labelledby': `step-${step.id}` },
    h('h3', { id: `step-${step.id}`, tabindex: -1 }, step.title, ' ', state),
    body,
    h(
      'p',
      {},
      ctx.api.button('Skip', `Skip: ${step.title}`, () => {
        mark('skipped');
        next();
      }),
    ),
  );
}

const stateText = (s) => (s === 'done' ? '(done)' : s === 'skipped' ? '(skipped)' : '');

/** Runs `fn`, or tells why the plugin behind a step is not there. */
async function orMissing(el, api, what, fn) {
  try {
    await fn();
  } catch (err) {
    // The admin API answers 404 "No route …" for a plugin that is not running.
    const why = /^No route/.test(err.message) ? 'its plugin is not running on this hub' : err.message;
    el.replaceChildren(api.h('p', {}, `${what}: ${why}.`));
  }
}

const homeStep = {
  id: 'home',
  title: 'Name the home',
  render(el, ctx) {
    const { api } = ctx;
    const { h } = api;
    orMissing(el, api, 'Homes', async () => {
      let site = ctx.site();
      if (!site) {
        site = await api.send('POST', '/sites', { name: 'Home' });
        ctx.setSite(site);
      }
      const place = await api.get(`/sites/${encodeURIComponent(site.siteid)}/location`);
      const name = h('input', { id: 'home-name', value: site.name, required: true, maxlength: 100 });
      const lat = h('input', { id: 'home-lat', inputmode: 'decimal', value: place.latitude ?? '' });
      const lon = h('input', { id: 'home-lon', inputmode: 'decimal', value: place.longitude ?? '' });
      const here = h('button', { type: 'button' }, 'Use this device’s location');
      // Browsers give the location only to a secure page (HTTPS, or this machine itself).
      if (!navigator.geolocation || !window.isSecureContext) {
        here.disabled = true;
        here.setAttribute('aria-describedby', 'geo-why');
      }
      here.addEventListener(
        'click',
        api.run('Find this device’s location', async () => {
          const pos = await new Promise((resolve, reject) =>
            navigator.geolocation.getCurrentPosition(resolve, reject, { timeout: 15000 }),
          );
          lat.value = pos.coords.latitude.toFixed(4);
          lon.value = pos.coords.longitude.toFixed(4);
          api.say('Location found; save to keep it.');
        }),
      );
      const save = async () => {
        const renamed = await api.send('PATCH', `/sites/${encodeURIComponent(site.siteid)}`, {
          name: name.value,
        });
        ctx.setSite({ ...site, ...renamed });
        if (lat.value.trim() || lon.value.trim()) {
          await api.send('PUT', `/sites/${encodeURIComponent(site.siteid)}/location`, {
            latitude: Number(lat.value),
            longitude: Number(lon.value),
          });
        }
        ctx.done();
        api.say(`Saved: ${name.value}.`);
      };
      el.replaceChildren(
        h(
          'form',
          { onsubmit: api.run('Save the home', save) },
          api.label('home-name', 'Name of the home'),
          name,
          h(
            'p',
            { id: 'place-hint' },
            'Where the home is, for schedules at sunrise and sunset: this device’s location, or the latitude and longitude of the place (a map app shows them).',
          ),
          api.label('home-lat', 'Latitude (−90 to 90)'),
          lat,
          api.label('home-lon', 'Longitude (−180 to 180)'),
          lon,
          h('p', {}, here),
          here.disabled
            ? h(
                'p',
                { id: 'geo-why' },
                'This browser gives its location only to a secure (https) page; type the place instead.',
              )
            : null,
          h('p', {}, h('button', { type: 'submit' }, 'Save the home')),
        ),
      );
    });
  },
};

const devicesStep = {
  id: 'devices',
  title: 'Find devices',
  render(el, ctx) {
    const { h } = ctx.api;
    const hue = h('div', {});
    const zigbee = h('div', {});
    const mqtt = h('div', {});
    el.append(
      h('h4', {}, 'Philips Hue bridges'),
      hue,
      h('h4', {}, 'Zigbee stick'),
      zigbee,
      h('h4', {}, 'Devices that announce themselves over MQTT'),
      mqtt,
    );
    hueBridges(hue, ctx);
    zigbeeStick(zigbee, ctx);
    mqttDevices(mqtt, ctx);
  },
};

function hueBridges(el, ctx) {
  const { api } = ctx;
  const { h } = api;
  const found = h('div', { 'aria-live': 'polite' });
  const pair = (b) => async () => {
    const site = ctx.site();
    if (!site) throw new Error('name the home first');
    api.say(`Press the round link button on ${b.name} now.`);
    let job = await api.send('POST', '/hue/pairings', {
      host: b.host,
      port: b.port,
      site: site.siteid,
      bridgeId: b.bridgeId,
    });
    // A job on the hub: it waits for the button until its deadline, even if this page is closed.
    while (job.state === 'waiting') {
      await new Promise((r) => setTimeout(r, 1000));
      job = await api.send('GET', `/hue/pairings/${encodeURIComponent(job.id)}`);
    }
    if (job.state === 'failed') throw new Error(job.error?.message ?? 'pairing failed');
    if (job.trust === 'pinned') api.say(`Its certificate was pinned (SHA-256 ${job.fingerprint256}).`);
    ctx.done();
    api.say(`${b.name} is paired; its lights are in ${site.name}.`);
  };
  el.append(
    h(
      'p',
      {},
      'Bridges on this network answer by mDNS. Pairing needs the round link button on the bridge pressed.',
    ),
    h(
      'p',
      {},
      api.button('Find bridges', 'Find Hue bridges', async () => {
        found.replaceChildren(h('p', {}, 'Looking…'));
        const list = await api.get('/hue/discover');
        found.replaceChildren(
          list.length
            ? h(
                'ul',
                {},
                list.map((b) =>
                  h('li', {}, `${b.name} (${b.host}) `, api.button('Pair', `Pair ${b.name}`, pair(b))),
                ),
              )
            : h('p', {}, 'No bridge answered. Is it on, and on the same network as the hub?'),
        );
      }),
    ),
    found,
  );
}

function zigbeeStick(el, ctx) {
  const { api } = ctx;
  const { h } = api;
  const show = async () => {
    const s = await api.get('/zigbee/status');
    if (s.connected) {
      el.replaceChildren(
        h('p', {}, `The stick at ${s.path ?? 'its port'} is connected (${s.devices ?? 0} devices).`),
        h(
          'p',
          {},
          api.button('Let devices join', 'Let Zigbee devices join for 2 minutes', async () => {
            const r = await api.send('POST', '/zigbee/permit-join', { seconds: 120 });
            ctx.done();
            api.say(`Zigbee devices may join for ${r.seconds} seconds: reset a bulb or sensor now.`);
          }),
        ),
      );
      return;
    }
    const found = await api.get('/zigbee/sticks');
    const again = h('p', {}, api.button('Look again', 'Look again for Zigbee sticks', show));
    if (found.configured) {
      el.replaceChildren(
        h(
          'p',
          {},
          `The stick set in the configuration (plugins.zigbee.path) is not connected${found.inUse ? ` at ${found.inUse}` : ''}. Is it plugged in?`,
        ),
        again,
      );
      return;
    }
    const use = (stick) => async () => {
      await api.send('PUT', '/zigbee/stick', { path: stick.path });
      api.say(`Connecting to ${stick.name}…`);
      // The hub opens the port and asks the stick what it is: a few seconds, more for a blank stick.
      for (let i = 0; i < 60; i++) {
        const now = await api.get('/zigbee/status');
        if (now.connected) {
          api.say(`The stick ${stick.name} is connected.`);
          return show();
        }
        await new Promise((r) => setTimeout(r, 1000));
      }
      throw new Error(`${stick.name} did not answer as a Zigbee stick`);
    };
    const kindText = { znp: 'Texas Instruments Z-Stack', ezsp: 'Silicon Labs EmberZNet' };
    el.replaceChildren(
      found.sticks.length
        ? h(
            'ul',
            { 'aria-label': 'Serial devices' },
            found.sticks.map((stick) =>
              h(
                'li',
                {},
                `${stick.name} (${kindText[stick.kind] ?? 'not a known Zigbee stick'}) `,
                api.button('Use this stick', `Use the stick ${stick.name}`, use(stick)),
              ),
            ),
          )
        : h(
            'p',
            {},
            `No Zigbee stick is connected, and no serial device is under ${found.folder}. Plug the stick in and look again.`,
          ),
      again,
    );
  };
  orMissing(el, api, 'Zigbee sticks', show);
}

function mqttDevices(el, ctx) {
  const { api } = ctx;
  const { h } = api;
  const look = async () => {
    const list = await api.get('/mqtt/devices');
    const fresh = list.filter((d) => d.new);
    el.replaceChildren(
      h(
        'p',
        {},
        fresh.length
          ? `${fresh.length} new device${fresh.length === 1 ? '' : 's'} announced: ${fresh.map((d) => d.name ?? d.protocolid).join(', ')}. Accept them on the MQTT devices page.`
          : `${list.length} device${list.length === 1 ? '' : 's'} known, none new. A device that announces itself (Home Assistant discovery) shows here.`,
      ),
      h('p', {}, api.button('Look again', 'Look again for MQTT devices', look)),
    );
  };
  orMissing(el, api, 'MQTT devices', look);
}

const inviteStep = {
  id: 'invite',
  title: 'Invite the household',
  render(el, ctx) {
    const { api } = ctx;
    const { h } = api;
    const shown = h('div', {});
    el.append(
      h(
        'p',
        {},
        'Everyone at home opens the household app from one link: scanning its QR code with a phone’s camera is enough. Making the link replaces the one made before (a phone that had it asks again).',
      ),
      h(
        'p',
        {},
        api.button('Show the household link', 'Show the household link as a QR code', async () => {
          const site = ctx.site();
          if (!site) throw new Error('name the home first');
          if (!confirm('Make a new household link? A link made before stops working.')) return;
          const fresh = await api.send('POST', `/sites/${encodeURIComponent(site.siteid)}/rotate-key`);
          const users = await api.get('/users').catch(() => []);
          const people = users.filter((u) => u.status === 'active' && u.email);
          const mail = (u) =>
            `mailto:${encodeURIComponent(u.email)}?subject=${encodeURIComponent(`The lights at ${site.name}`)}&body=${encodeURIComponent(fresh.url)}`;
          shown.replaceChildren(
            h('img', {
              src: await api.qr(fresh.url),
              alt: `QR code of the household link of ${site.name}`,
              width: 220,
              height: 220,
            }),
            h('p', { class: 'secret' }, fresh.url),
            people.length
              ? h(
                  'ul',
                  { 'aria-label': 'Send the link to' },
                  people.map((u) =>
                    h('li', {}, h('a', { href: mail(u) }, `Email the link to ${u.name || u.email}`)),
                  ),
                )
              : null,
          );
          ctx.done();
          api.say('The household link is shown as a QR code.');
        }),
      ),
      shown,
    );
  },
};

/** Shown only when the Matter plugin runs (its status answers 200). */
async function assistantsStep(api) {
  const matter = await api.get('/matter').catch(() => null);
  if (!matter) return null;
  return {
    id: 'assistants',
    title: 'Turn on the assistants',
    render(el, ctx) {
      const { h } = api;
      const shown = h('div', {});
      el.append(
        h(
          'p',
          {},
          'Apple Home, Google Home and Alexa add the home’s lights through Matter: open a pairing window, then scan its code in the assistant’s app.',
        ),
        h(
          'p',
          {},
          api.button('Open a pairing window', 'Open a Matter pairing window', async () => {
            const site = ctx.site();
            if (!site) throw new Error('name the home first');
            const w = await api.send('POST', `/matter/${encodeURIComponent(site.siteid)}/window`, {});
            shown.replaceChildren(
              h('img', {
                src: await api.qr(w.qrPayload),
                alt: 'Matter pairing QR code',
                width: 220,
                height: 220,
              }),
              h('p', {}, `Or type the code ${w.manualPairingCode}`),
            );
            ctx.done();
            api.say('The pairing window is open.');
          }),
        ),
        shown,
      );
    },
  };
}

function ownerSection(api, owner) {
  const { h } = api;
  const list = (urls) =>
    h(
      'ul',
      {},
      urls.map((u) => h('li', {}, h('a', { href: u }, u))),
    );
  const pw = h('input', {
    id: 'new-owner-password',
    type: 'password',
    autocomplete: 'new-password',
    minlength: 8,
    required: true,
  });
  const form = h(
    'form',
    {
      onsubmit: api.run('Change the owner password', async () => {
        await api.send('PUT', '/console/owner/password', { password: pw.value });
        pw.value = '';
        api.say('The owner password is saved.');
      }),
    },
    api.label('new-owner-password', owner.password ? 'New owner password' : 'Choose an owner password'),
    pw,
    h(
      'p',
      {},
      h(
        'button',
        { type: 'submit' },
        owner.password ? 'Change the owner password' : 'Set the owner password',
      ),
    ),
  );
  return h(
    'section',
    { 'aria-labelledby': 'step-owner' },
    h('h3', { id: 'step-owner', tabindex: -1 }, 'This hub'),
    h(
      'p',
      {},
      owner.claimed
        ? `Set up${owner.claimedAt ? ` on ${new Date(owner.claimedAt).toLocaleString()}` : ''}${owner.claimedFrom ? ` from ${owner.claimedFrom}` : ''}.`
        : 'Not claimed yet: the console offers "Set up this hub" to the first visitor from the home network.',
    ),
    owner.setupCode ? h('p', {}, `Setup code: ${owner.setupCode}`) : null,
    h('h4', {}, 'The console, from a phone or computer on this network'),
    list(owner.addresses.console),
    h('h4', {}, 'The household app starts at'),
    list(owner.addresses.household),
    h('h4', {}, 'Owner password'),
    form,
  );
}
