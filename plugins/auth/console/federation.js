// Console page of the authorization server: trusted identity providers (cross-app access with ID-JAG),
// their XAA policies and subject mappings. Providers and policies are edited in place: "Edit" opens a
// pre-filled form under the table; a refused save changes nothing.
export async function render(root, api) {
  const { h, run, button, table, words, label, checkbox, editor } = api;

  const idpRows = h('tbody');
  const policyRows = h('tbody');
  const mappingRows = h('tbody');
  const idpEdit = h('div', { id: 'idp-edit' });
  const policyEdit = h('div', { id: 'policy-edit' });
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
  );
  await load();
}
