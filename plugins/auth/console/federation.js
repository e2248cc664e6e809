// Console page of the authorization server: trusted identity providers (cross-app access with ID-JAG),
// their XAA policies and subject mappings, broker providers (upstream credential sources) and the upstream
// sign-in providers of the configuration with their client secrets. IdPs, policies and broker providers are
// edited in place: "Edit" opens a pre-filled form under the table; a refused save changes nothing.
export async function render(root, api) {
  const { h } = api;
  const run = (what, fn) => async (e) => {
    e?.preventDefault?.();
    try {
      await fn();
    } catch (err) {
      api.say(`${what}: ${err.message}`, true);
    }
  };
  const button = (text, label, fn) =>
    h('button', { type: 'button', 'aria-label': label, onclick: run(text, fn) }, text);
  const table = (caption, heads, body) =>
    h(
      'table',
      {},
      h('caption', {}, caption),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          heads.map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      body,
    );
  const words = (s) => s.split(/[\s,]+/).filter(Boolean);
  const label = (id, text) => h('label', { for: id }, text);
  const checkbox = (id, text, checked) => {
    const box = h('input', { id, type: 'checkbox', checked });
    return [box, h('p', {}, box, ' ', h('label', { for: id, class: 'inline' }, text))];
  };

  /**
   * One form at a time in `area`: pre-filled, Save and Cancel. A failed save leaves the form open with the
   * API's reason announced; after a save or cancel, focus goes back to the button that opened it (whose
   * accessible name is "<verb> <what>").
   */
  const editor =
    (area, reload) =>
    (what, fields, save, verb = 'Edit') => {
      const heading = h('h4', { id: `${area.id}-title`, tabindex: '-1' }, `${verb} ${what}`);
      const close = (said) => {
        area.replaceChildren();
        if (said) api.say(said);
        root.querySelector(`button[aria-label="${CSS.escape(`${verb} ${what}`)}"]`)?.focus();
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
          h(
            'p',
            {},
            h('button', { type: 'submit', 'aria-label': `Save ${what}` }, 'Save'),
            ' ',
            h(
              'button',
              { type: 'button', 'aria-label': `Cancel editing ${what}`, onclick: () => close() },
              'Cancel',
            ),
          ),
        ),
      );
      heading.focus();
    };

  const idpRows = h('tbody');
  const policyRows = h('tbody');
  const mappingRows = h('tbody');
  const idpEdit = h('div', { id: 'idp-edit' });
  const policyEdit = h('div', { id: 'policy-edit' });
  const brokerArea = h('div', { id: 'broker-providers' });
  const oidcArea = h('div', { id: 'oidc-providers' });
  const idpSelects = [h('select', { id: 'policy-idp' }), h('select', { id: 'mapping-idp' })];
  const mappingUser = h('select', { id: 'mapping-user' });
  const editIdp = editor(idpEdit, load);
  const editPolicy = editor(policyEdit, load);
  let idps = [];

  function idpForm(i) {
    const p = 'edit-idp';
    const name = h('input', { id: `${p}-name`, required: true, value: i.name });
    const issuer = h('input', { id: `${p}-issuer`, type: 'url', required: true, value: i.issuer });
    const jwks = h('input', {
      id: `${p}-jwks`,
      type: 'url',
      value: i.jwks_uri,
      placeholder: 'empty: from the issuer metadata',
    });
    const audience = h('input', {
      id: `${p}-audience`,
      value: i.audience,
      placeholder: "empty: this hub's issuer",
    });
    const [enabled, enabledRow] = checkbox(
      `${p}-enabled`,
      'Enabled (its assertions are accepted)',
      i.enabled,
    );
    editIdp(
      `identity provider ${i.name}`,
      [
        [label(`${p}-name`, 'Provider name'), name],
        [label(`${p}-issuer`, 'Issuer URL'), issuer],
        [label(`${p}-jwks`, 'JWKS URL'), jwks],
        [label(`${p}-audience`, 'Audience expected in its assertions'), audience],
        enabledRow,
      ],
      async () => {
        const saved = await api.send('PUT', `/idps/${encodeURIComponent(i.id)}`, {
          name: name.value,
          issuer: issuer.value,
          jwks_uri: jwks.value,
          audience: audience.value,
          enabled: enabled.checked,
        });
        return `Saved ${saved.name}.`;
      },
    );
  }

  function policyForm(x) {
    const p = 'edit-policy';
    const name = h('input', { id: `${p}-name`, required: true, value: x.name });
    const idp = h(
      'select',
      { id: `${p}-idp` },
      idps.map((i) => h('option', { value: i.id, selected: i.id === x.idp_id }, i.name)),
    );
    const clients = h('input', {
      id: `${p}-clients`,
      value: x.client_ids.join(' '),
      placeholder: 'empty: any client',
    });
    const resources = h('input', {
      id: `${p}-resources`,
      value: x.resources.join(' '),
      placeholder: 'empty: any resource',
    });
    const scopes = h('input', {
      id: `${p}-scopes`,
      value: x.scopes.join(' '),
      placeholder: 'empty: no narrowing',
    });
    const [enabled, enabledRow] = checkbox(`${p}-enabled`, 'Enabled', x.enabled);
    editPolicy(
      `policy ${x.name}`,
      [
        [label(`${p}-name`, 'Policy name'), name],
        [label(`${p}-idp`, 'Identity provider'), idp],
        [label(`${p}-clients`, 'Client IDs'), clients],
        [label(`${p}-resources`, 'Resources (slugs or URIs)'), resources],
        [label(`${p}-scopes`, 'Scopes'), scopes],
        enabledRow,
      ],
      async () => {
        const saved = await api.send('PUT', `/xaa/policies/${encodeURIComponent(x.id)}`, {
          name: name.value,
          idp_id: idp.value,
          client_ids: words(clients.value),
          resources: words(resources.value),
          scopes: words(scopes.value),
          enabled: enabled.checked,
        });
        return `Saved policy ${saved.name}.`;
      },
    );
  }

  async function load() {
    const [idpList, policies, mappings, users] = await Promise.all([
      api.get('/idps'),
      api.get('/xaa/policies'),
      api.get('/xaa/subject-mappings'),
      api.get('/users'),
    ]);
    idps = idpList;
    const idpName = (id) => idps.find((i) => i.id === id)?.name ?? id;
    idpRows.replaceChildren(
      ...idps.map((i) =>
        h(
          'tr',
          { 'data-idp': i.name },
          h('td', {}, i.name),
          h('td', { class: 'secret' }, i.issuer),
          h('td', {}, i.enabled ? 'enabled' : 'disabled'),
          h(
            'td',
            {},
            `${i.key_ids?.length ?? 0} keys${i.keys_fetched_at ? `, fetched ${i.keys_fetched_at.slice(0, 16).replace('T', ' ')}` : ''}`,
          ),
          h(
            'td',
            {},
            button('Edit', `Edit identity provider ${i.name}`, async () => idpForm(i)),
            button('Refresh keys', `Refresh the keys of ${i.name}`, async () => {
              const r = await api.send('POST', `/idps/${encodeURIComponent(i.id)}/refresh-keys`);
              api.say(`${i.name}: ${r.key_ids?.length ?? 0} keys.`);
              await load();
            }),
            button('Delete', `Delete identity provider ${i.name}`, async () => {
              if (!confirm(`Delete ${i.name} with its policies and subject mappings?`)) return;
              await api.send('DELETE', `/idps/${encodeURIComponent(i.id)}`);
              api.say(`Deleted ${i.name}.`);
              await load();
            }),
          ),
        ),
      ),
    );
    for (const sel of idpSelects)
      sel.replaceChildren(...idps.map((i) => h('option', { value: i.id }, i.name)));
    mappingUser.replaceChildren(...users.map((u) => h('option', { value: u.id }, u.email)));
    policyRows.replaceChildren(
      ...policies.map((p) =>
        h(
          'tr',
          { 'data-policy': p.name },
          h('td', {}, p.name),
          h('td', {}, idpName(p.idp_id)),
          h('td', {}, p.client_ids.join(' ') || 'any'),
          h('td', {}, p.resources.join(' ') || 'any'),
          h('td', {}, p.scopes.join(' ') || 'any'),
          h('td', {}, p.enabled ? 'enabled' : 'disabled'),
          h(
            'td',
            {},
            button('Edit', `Edit policy ${p.name}`, async () => policyForm(p)),
            button('Delete', `Delete policy ${p.name}`, async () => {
              if (!confirm(`Delete the policy ${p.name}?`)) return;
              await api.send('DELETE', `/xaa/policies/${encodeURIComponent(p.id)}`);
              api.say(`Deleted policy ${p.name}.`);
              await load();
            }),
          ),
        ),
      ),
    );
    const userEmail = (id) => users.find((u) => u.id === id)?.email ?? id;
    mappingRows.replaceChildren(
      ...mappings.map((m) =>
        h(
          'tr',
          {},
          h('td', {}, idpName(m.idp_id)),
          h('td', {}, m.idp_subject),
          h('td', {}, userEmail(m.local_user_id)),
          h(
            'td',
            {},
            button('Delete', `Delete the mapping of ${m.idp_subject}`, async () => {
              await api.send('DELETE', `/xaa/subject-mappings/${encodeURIComponent(m.id)}`);
              api.say(`Deleted the mapping of ${m.idp_subject}.`);
              await load();
            }),
          ),
        ),
      ),
    );
  }

  // Broker providers: their admin API may not exist on this hub yet; the section says so instead.
  const brokerRows = h('tbody');
  const brokerEdit = h('div', { id: 'broker-edit' });
  const editBroker = editor(brokerEdit, loadBrokers);
  const bSlug = h('input', { id: 'broker-slug', required: true });
  const bName = h('input', { id: 'broker-name', required: true });
  const bProtocol = h('input', { id: 'broker-protocol', required: true, value: 'oauth2' });
  const bConfig = h('textarea', { id: 'broker-config', rows: 4, cols: 50, required: true });
  bConfig.value = '{}';
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
    const config = h('textarea', { id: `${p}-config`, rows: 6, cols: 50, required: true });
    const initial = JSON.stringify(shown, null, 2);
    config.value = initial;
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

  const iName = h('input', { id: 'idp-name', required: true });
  const iIssuer = h('input', { id: 'idp-issuer', type: 'url', required: true });
  const iJwks = h('input', { id: 'idp-jwks', type: 'url', placeholder: 'empty: from the issuer metadata' });
  const iAudience = h('input', { id: 'idp-audience', placeholder: "empty: this hub's issuer" });
  const [iEnabled, iEnabledRow] = checkbox('idp-enabled', 'Enabled (its assertions are accepted)', true);
  const pName = h('input', { id: 'policy-name', required: true });
  const pClients = h('input', { id: 'policy-clients', placeholder: 'empty: any client' });
  const pResources = h('input', { id: 'policy-resources', placeholder: 'empty: any resource' });
  const pScopes = h('input', { id: 'policy-scopes', placeholder: 'empty: no narrowing' });
  const [pEnabled, pEnabledRow] = checkbox('policy-enabled', 'Enabled', true);
  const mSubject = h('input', { id: 'mapping-subject', required: true });

  root.append(
    table('Identity providers (cross-app access)', ['Name', 'Issuer', 'State', 'Keys', 'Actions'], idpRows),
    idpEdit,
    h(
      'form',
      {
        onsubmit: run('Identity provider', async () => {
          const i = await api.send('POST', '/idps', {
            name: iName.value,
            issuer: iIssuer.value,
            ...(iJwks.value ? { jwks_uri: iJwks.value } : {}),
            ...(iAudience.value ? { audience: iAudience.value } : {}),
            enabled: iEnabled.checked,
          });
          api.say(`Added ${i.name}.`);
          await load();
        }),
      },
      h('h3', {}, 'New identity provider'),
      label('idp-name', 'Provider name'),
      iName,
      label('idp-issuer', 'Issuer URL'),
      iIssuer,
      label('idp-jwks', 'JWKS URL'),
      iJwks,
      label('idp-audience', 'Audience expected in its assertions'),
      iAudience,
      iEnabledRow,
      h('p', {}, h('button', { type: 'submit' }, 'Add identity provider')),
    ),
    table(
      'XAA policies',
      ['Name', 'Identity provider', 'Clients', 'Resources', 'Scopes', 'State', 'Actions'],
      policyRows,
    ),
    policyEdit,
    h(
      'form',
      {
        onsubmit: run('XAA policy', async () => {
          await api.send('POST', '/xaa/policies', {
            name: pName.value,
            idp_id: idpSelects[0].value,
            client_ids: words(pClients.value),
            resources: words(pResources.value),
            scopes: words(pScopes.value),
            enabled: pEnabled.checked,
          });
          api.say(`Added policy ${pName.value}.`);
          await load();
        }),
      },
      h('h3', {}, 'New XAA policy'),
      label('policy-name', 'Policy name'),
      pName,
      label('policy-idp', 'Identity provider'),
      idpSelects[0],
      label('policy-clients', 'Client IDs'),
      pClients,
      label('policy-resources', 'Resources (slugs or URIs)'),
      pResources,
      label('policy-scopes', 'Scopes'),
      pScopes,
      pEnabledRow,
      h('p', {}, h('button', { type: 'submit' }, 'Add policy')),
    ),
    table('Subject mappings', ['Identity provider', 'Subject there', 'User here', 'Actions'], mappingRows),
    h(
      'form',
      {
        onsubmit: run('Subject mapping', async () => {
          await api.send('POST', '/xaa/subject-mappings', {
            idp_id: idpSelects[1].value,
            idp_subject: mSubject.value,
            local_user_id: mappingUser.value,
          });
          api.say(`Mapped ${mSubject.value}.`);
          await load();
        }),
      },
      h('h3', {}, 'New subject mapping'),
      label('mapping-idp', 'Identity provider'),
      idpSelects[1],
      label('mapping-subject', 'Subject at the provider'),
      mSubject,
      label('mapping-user', 'Local user'),
      mappingUser,
      h('p', {}, h('button', { type: 'submit' }, 'Add mapping')),
    ),
    h('h3', {}, 'Broker providers'),
    brokerArea,
    h('h3', {}, 'Upstream sign-in providers'),
    oidcArea,
  );
  await Promise.all([load(), loadBrokers(), loadOidc()]);
}
