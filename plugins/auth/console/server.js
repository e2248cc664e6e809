// Console page of the authorization server: status, figures, notices, what is switched on, and the signing
// keys with rotation.
export async function render(root, api) {
  const { h, table } = api;
  const keyRows = h('tbody');
  const pairs = (caption, entries) =>
    h(
      'table',
      {},
      h('caption', {}, caption),
      h(
        'tbody',
        {},
        entries.map(([k, v]) => h('tr', {}, h('th', { scope: 'row' }, k), h('td', {}, String(v)))),
      ),
    );

  async function loadKeys() {
    const { keys } = await api.get('/keys');
    keyRows.replaceChildren(
      ...keys.map((k) =>
        h(
          'tr',
          { 'data-kid': k.kid },
          h('td', { class: 'secret' }, k.kid),
          h('td', {}, k.alg),
          h('td', {}, k.status),
        ),
      ),
    );
  }

  const [status, config, stats] = await Promise.all([
    api.get('/system/status'),
    api.get('/system/config'),
    api.get('/stats'),
  ]);
  const on = (x) => (x ? 'on' : 'off');
  root.append(
    pairs('Status', [
      ['Version', status.version],
      ['Up for', status.uptime],
      ...status.subsystems.map((s) => [s.name, `${s.status}${s.driver ? ` (${s.driver})` : ''}`]),
    ]),
    pairs('Figures', [
      ['Clients', stats.clients],
      ['Users', stats.users],
      ['Live tokens issued in the last 24 hours', stats.active_tokens_24h],
      ['Revoked tokens not yet expired', stats.revoked_tokens],
      ['Upstream connections', stats.connections],
    ]),
    h('h3', {}, 'Notices'),
    config.notices.length
      ? h(
          'ul',
          { id: 'auth-notices' },
          config.notices.map((n) => h('li', {}, h('strong', {}, `${n.severity}: ${n.title}. `), n.body)),
        )
      : h('p', {}, 'No notices.'),
    pairs('Configuration', [
      ['Issuer', config.issuer],
      ['Dynamic registration', config.dcr.mode],
      ['DPoP', `${on(config.dpop.enabled)}${config.dpop.require_nonce ? ', nonces required' : ''}`],
      [
        'Token exchange',
        `${on(config.token_exchange.enabled)}${config.token_exchange.max_chain_depth ? `, chains up to ${config.token_exchange.max_chain_depth}` : ''}`,
      ],
      ['Upstream OpenID login', on(config.oidc.enabled)],
      ['Signing', `${config.signing.algorithm} (${config.signing.key_store})`],
    ]),
    h('h3', {}, 'Signing keys'),
    table('Signing keys (public parts are in the JWKS)', ['Key ID', 'Algorithm', 'Status'], keyRows),
    h(
      'p',
      {},
      h(
        'button',
        {
          type: 'button',
          onclick: async () => {
            if (
              !confirm('Make new signing keys? Tokens signed with the old ones stay valid until they expire.')
            )
              return;
            try {
              const k = await api.send('POST', '/keys/rotate');
              api.say(`New current key ${k.kid} (${k.alg}).`);
              await loadKeys();
            } catch (err) {
              api.say(`Rotate keys: ${err.message}`, true);
            }
          },
        },
        'Rotate signing keys',
      ),
    ),
  );
  await loadKeys();
}
