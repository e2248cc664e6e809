// Console page of the authorization server: broker providers (the upstream services whose credentials
// brokered resources hand out), edited in place, and the upstream sign-in providers of the configuration,
// whose client secrets are set here. A stored secret is never shown back.
export async function render(root, api) {
  const { h, run, button, table, label, checkbox, textarea, editor } = api;
  const brokerArea = h('div', { id: 'broker-providers' });
  const oidcArea = h('div', { id: 'oidc-providers' });

  // Broker providers: their admin API may not exist on this hub yet; the section says so instead.
  const brokerRows = h('tbody');
  const brokerEdit = h('div', { id: 'broker-edit' });
  const editBroker = editor(brokerEdit, loadBrokers);
  const bSlug = h('input', { id: 'broker-slug', required: true });
  const bName = h('input', { id: 'broker-name', required: true });
  const bProtocol = h('input', { id: 'broker-protocol', required: true, value: 'oauth2' });
  const bConfig = textarea({ id: 'broker-config', rows: 4, required: true }, '{}');
  const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

  /**
   * The configuration is shown without its `client_secret` (a secret is never shown back); the secret field
   * starts empty. Saving with it empty keeps the stored secret: the API replaces `config_data` as a whole,
   * so the page puts the stored secret back into the edited configuration, or leaves `config_data` out
   * when neither changed.
   */
  async function brokerForm(b) {
    const cur = await api.get(`/broker-providers/${encodeURIComponent(b.id)}`);
    const stored = isObject(cur.config_data) ? cur.config_data.client_secret : undefined;
    const shown = isObject(cur.config_data)
      ? Object.fromEntries(Object.entries(cur.config_data).filter(([k]) => k !== 'client_secret'))
      : cur.config_data;
    const p = 'edit-broker';
    const slug = h('input', { id: `${p}-slug`, required: true, value: cur.slug });
    const name = h('input', { id: `${p}-name`, required: true, value: cur.display_name });
    const protocol = h('input', { id: `${p}-protocol`, required: true, value: cur.protocol });
    const initial = JSON.stringify(shown, null, 2);
    const config = textarea({ id: `${p}-config`, rows: 6, required: true }, initial);
    const secret = h('input', {
      id: `${p}-secret`,
      type: 'password',
      autocomplete: 'new-password',
      placeholder: stored === undefined ? 'none stored' : 'empty: keep the stored secret',
    });
    const [clear, clearRow] = checkbox(`${p}-clear`, 'Remove the stored client secret', false);
    editBroker(
      `broker provider ${cur.slug}`,
      [
        [label(`${p}-slug`, 'Slug'), slug],
        [label(`${p}-name`, 'Display name'), name],
        [label(`${p}-protocol`, 'Protocol'), protocol],
        [label(`${p}-config`, 'Configuration (JSON, without the client secret)'), config],
        [label(`${p}-secret`, 'New client secret (empty: keep the stored one)'), secret],
        stored === undefined ? [] : clearRow,
      ],
      async () => {
        const body = { slug: slug.value, display_name: name.value, protocol: protocol.value };
        if (config.value !== initial || secret.value || clear.checked) {
          let next;
          try {
            next = JSON.parse(config.value);
          } catch {
            throw new Error('the configuration must be JSON');
          }
          if ((secret.value || stored !== undefined) && !isObject(next))
            throw new Error('a configuration with a client secret must be a JSON object');
          if (secret.value) next.client_secret = secret.value;
          else if (clear.checked) delete next.client_secret;
          else if (stored !== undefined && next.client_secret === undefined) next.client_secret = stored;
          body.config_data = next;
        }
        const saved = await api.send('PATCH', `/broker-providers/${encodeURIComponent(b.id)}`, body);
        return `Saved broker provider ${saved.slug}.`;
      },
    );
  }

  async function loadBrokers() {
    let list;
    try {
      list = await api.get('/broker-providers');
    } catch (err) {
      brokerArea.replaceChildren(
        h('p', {}, `Broker providers are not available on this hub (${err.message}).`),
      );
      return;
    }
    brokerRows.replaceChildren(
      ...list.map((b) =>
        h(
          'tr',
          { 'data-broker': b.slug },
          h('td', {}, b.slug),
          h('td', {}, b.display_name),
          h('td', {}, b.protocol),
          h('td', {}, (b.created_at ?? '').slice(0, 16).replace('T', ' ')),
          h(
            'td',
            {},
            button('Edit', `Edit broker provider ${b.slug}`, () => brokerForm(b)),
            button('Delete', `Delete broker provider ${b.slug}`, async () => {
              if (!confirm(`Delete the broker provider ${b.slug}?`)) return;
              await api.send('DELETE', `/broker-providers/${encodeURIComponent(b.id)}`);
              api.say(`Deleted ${b.slug}.`);
              await loadBrokers();
            }),
          ),
        ),
      ),
    );
    if (!brokerArea.firstChild)
      brokerArea.replaceChildren(
        table('Broker providers', ['Slug', 'Name', 'Protocol', 'Created', 'Actions'], brokerRows),
        brokerEdit,
        h(
          'form',
          {
            onsubmit: run('Broker provider', async () => {
              let config;
              try {
                config = JSON.parse(bConfig.value);
              } catch {
                throw new Error('the configuration must be JSON');
              }
              const b = await api.send('POST', '/broker-providers', {
                slug: bSlug.value,
                display_name: bName.value,
                protocol: bProtocol.value,
                config_data: config,
              });
              api.say(`Created broker provider ${b.slug}.`);
              await loadBrokers();
            }),
          },
          h('h4', {}, 'New broker provider'),
          h('label', { for: 'broker-slug' }, 'Slug'),
          bSlug,
          h('label', { for: 'broker-name' }, 'Display name'),
          bName,
          h('label', { for: 'broker-protocol' }, 'Protocol'),
          bProtocol,
          h('label', { for: 'broker-config' }, 'Configuration (JSON, stored as given)'),
          bConfig,
          h('p', {}, h('button', { type: 'submit' }, 'Create broker provider')),
        ),
      );
  }

  // Upstream sign-in providers come from the configuration; only their client secrets are set here.
  const oidcRows = h('tbody');
  const oidcEdit = h('div', { id: 'oidc-edit' });
  const editSecret = editor(oidcEdit, loadOidc);
  async function loadOidc() {
    const list = await api.get('/oidc/providers');
    if (list.length === 0) {
      oidcArea.replaceChildren(
        h('p', {}, 'No upstream sign-in providers are configured (plugins.auth.oidc.providers).'),
      );
      return;
    }
    oidcRows.replaceChildren(
      ...list.map((p) =>
        h(
          'tr',
          { 'data-oidc': p.id },
          h('td', {}, p.display_name),
          h('td', {}, p.id),
          h('td', { class: 'secret' }, p.issuer),
          h('td', { class: 'secret' }, p.client_id),
          h('td', {}, p.enabled ? 'offered' : 'off (oidc.enabled)'),
          h('td', {}, p.has_client_secret ? 'set' : 'not set'),
          h(
            'td',
            {},
            button('Set secret', `Set the client secret of ${p.display_name}`, async () => {
              const id = 'oidc-secret';
              const secret = h('input', {
                id,
                type: 'password',
                required: true,
                autocomplete: 'new-password',
              });
              editSecret(
                `the client secret of ${p.display_name}`,
                [[label(id, `New client secret for ${p.display_name}`), secret]],
                async () => {
                  await api.send('PUT', `/oidc/providers/${encodeURIComponent(p.id)}/client-secret`, {
                    client_secret: secret.value,
                  });
                  return `Stored the client secret of ${p.display_name}.`;
                },
                'Set',
              );
            }),
            p.has_client_secret
              ? button('Clear secret', `Clear the client secret of ${p.display_name}`, async () => {
                  if (!confirm(`Remove the client secret of ${p.display_name}? Sign-in there stops working.`))
                    return;
                  await api.send('DELETE', `/oidc/providers/${encodeURIComponent(p.id)}/client-secret`);
                  api.say(`Removed the client secret of ${p.display_name}.`);
                  await loadOidc();
                })
              : null,
          ),
        ),
      ),
    );
    if (oidcArea.firstChild?.tagName !== 'TABLE')
      oidcArea.replaceChildren(
        table(
          'Upstream sign-in providers (from the configuration)',
          ['Name', 'ID', 'Issuer', 'Client ID', 'Login page', 'Client secret', 'Actions'],
          oidcRows,
        ),
        oidcEdit,
      );
  }

  root.append(
    h('h3', {}, 'Broker providers'),
    brokerArea,
    h('h3', {}, 'Upstream sign-in providers'),
    oidcArea,
  );
  await Promise.all([loadBrokers(), loadOidc()]);
}
