// Console page of the authorization server: tokens issued per hour (an inline SVG chart), issuances with
// filters (details and revocation), the live access tokens (revocable one by one) and the audit log with
// filters.
const SVG = 'http://www.w3.org/2000/svg';

/** A bar chart of hourly counts as an SVG element (attributes only: the console's CSP allows no inline style). */
function hourlyChart(hours, labelId) {
  const el = (tag, attrs, ...children) => {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    e.append(...children);
    return e;
  };
  const w = 720;
  const top = 20;
  const plot = 160;
  const max = Math.max(1, ...hours.map((x) => x.count));
  const bar = w / hours.length;
  const svg = el('svg', {
    viewBox: `0 0 ${w} ${top + plot + 24}`,
    width: '100%',
    role: 'img',
    'aria-labelledby': labelId,
    id: 'issued-chart',
    fill: 'currentColor',
  });
  hours.forEach((x, n) => {
    const height = Math.round((x.count / max) * plot);
    const rect = el('rect', {
      x: (n * bar + 1).toFixed(1),
      y: top + plot - height,
      width: Math.max(1, bar - 2).toFixed(1),
      height,
      'data-count': x.count,
    });
    rect.append(el('title', {}, `${x.start.slice(11, 16)}: ${x.count}`));
    svg.append(rect);
    if (n % 6 === 0)
      svg.append(
        el('text', { x: (n * bar).toFixed(1), y: top + plot + 18, 'font-size': 12 }, x.start.slice(11, 16)),
      );
  });
  svg.append(
    el('line', { x1: 0, x2: w, y1: top + plot, y2: top + plot, stroke: 'currentColor', 'stroke-width': 1 }),
    el('text', { x: 0, y: 14, 'font-size': 12 }, `max ${max}`),
  );
  return svg;
}

export async function render(root, api) {
  const { h, run, table } = api;
  const when = (iso) => (iso ? iso.slice(0, 19).replace('T', ' ') : '');
  const sinceIso = (hours) => new Date(Date.now() - Number(hours) * 3_600_000).toISOString();
  const sinceSelect = (id) =>
    h(
      'select',
      { id },
      [
        ['1', 'last hour'],
        ['24', 'last 24 hours'],
        ['168', 'last 7 days'],
        ['720', 'last 30 days'],
      ].map(([v, t]) => h('option', { value: v, selected: v === '24' }, t)),
    );

  // Chart
  const per = await api.get('/stats/issued-per-hour?hours=24');
  const peak = Math.max(0, ...per.hours.map((x) => x.count));
  const chartRows = h(
    'tbody',
    {},
    per.hours.map((x) => h('tr', {}, h('td', {}, when(x.start).slice(0, 16)), h('td', {}, String(x.count)))),
  );
  const figure = h(
    'figure',
    {},
    hourlyChart(per.hours, 'issued-caption'),
    h(
      'figcaption',
      { id: 'issued-caption' },
      `Access tokens issued per hour, last 24 hours: ${per.total} in all, at most ${peak} in one hour.`,
    ),
    h(
      'details',
      {},
      h('summary', {}, 'The figures'),
      table('Tokens issued per hour', ['Hour starting (UTC)', 'Tokens'], chartRows),
    ),
  );

  // Issuances
  const iUser = h('input', { id: 'iss-user' });
  const iClient = h('input', { id: 'iss-client' });
  const iResource = h('input', { id: 'iss-resource' });
  const iJti = h('input', { id: 'iss-jti' });
  const iSince = sinceSelect('iss-since');
  const issuanceRows = h('tbody');
  /** Fills the issuance table; returns how many were found. */
  async function loadIssuances() {
    const q = new URLSearchParams();
    if (iUser.value) q.set('user', iUser.value);
    if (iClient.value) q.set('client', iClient.value);
    if (iResource.value) q.set('resource', iResource.value);
    if (iJti.value) q.set('jti', iJti.value);
    if (![...q.keys()].length) throw new Error('give a user, client, resource or token id');
    q.set('since', sinceIso(iSince.value));
    const r = await api.get(`/issuances?${q}`);
    issuanceRows.replaceChildren(
      ...r.issuances.map((i) =>
        h(
          'tr',
          { 'data-jti': i.jti },
          h('td', {}, when(i.issued_at)),
          h('td', {}, i.client_id),
          h('td', {}, i.subject_user_id || '—'),
          h('td', {}, i.resource_id),
          h('td', {}, i.scopes.join(' ')),
          h('td', {}, i.dpop_jkt ? 'DPoP' : 'Bearer'),
          h('td', {}, i.parent_jti ? `exchanged (${i.agent_chain.join(' → ')})` : ''),
          h(
            'td',
            {},
            i.revoked_at
              ? `revoked ${when(i.revoked_at)}`
              : Date.parse(i.expires_at) < Date.now()
                ? 'expired'
                : 'live',
          ),
          h(
            'td',
            {},
            h(
              'button',
              {
                type: 'button',
                'aria-label': `Details of token ${i.jti}`,
                onclick: run('Details', () => showIssuance(i)),
              },
              'Details',
            ),
            ' ',
            i.revoked_at || Date.parse(i.expires_at) < Date.now()
              ? ''
              : h(
                  'button',
                  {
                    type: 'button',
                    'aria-label': `Revoke token ${i.jti}`,
                    onclick: run('Revoke', async () => {
                      await api.send('DELETE', `/issuances/${encodeURIComponent(i.id)}`);
                      await loadIssuances();
                      api.say(`Revoked ${i.jti} and what was exchanged from it.`);
                    }),
                  },
                  'Revoke',
                ),
          ),
        ),
      ),
    );
    return r.count;
  }
  const searchIssuances = run('Issuances', async () => {
    api.say(`${await loadIssuances()} issuances.`);
  });
  // One issuance as the API stores it (GET /issuances/:id): every field, including the exchange chain.
  const issuanceDetail = h('div', { id: 'issuance-detail' });
  async function showIssuance(i) {
    const full = await api.get(`/issuances/${encodeURIComponent(i.id)}`);
    // The exchange chain reads as a path; every other list (scopes) as a space-separated set.
    const text = (k, v) =>
      Array.isArray(v) ? v.join(k === 'agent_chain' ? ' → ' : ' ') || '—' : v === '' ? '—' : String(v);
    issuanceDetail.replaceChildren(
      h('h4', {}, `Token ${full.jti}`),
      h(
        'dl',
        {},
        Object.entries(full).flatMap(([k, v]) => [h('dt', {}, k), h('dd', { class: 'secret' }, text(k, v))]),
      ),
    );
    api.say(`Details of ${full.jti} shown below the issuances.`);
  }

  // Live access tokens (GET /tokens: unexpired, unrevoked), a page at a time.
  const PAGE = 50;
  const tClient = h('input', { id: 'tok-client' });
  const tUser = h('input', { id: 'tok-user' });
  const tokenRows = h('tbody');
  const tokenCount = h('p', { id: 'token-count' });
  let tokenOffset = 0;
  const prev = h('button', { type: 'button' }, 'Previous tokens');
  const next = h('button', { type: 'button' }, 'Next tokens');
  async function loadTokens() {
    const q = new URLSearchParams({ limit: String(PAGE), offset: String(tokenOffset) });
    if (tClient.value) q.set('client_id', tClient.value);
    if (tUser.value) q.set('user_id', tUser.value);
    const r = await api.get(`/tokens?${q}`);
    if (r.tokens.length === 0 && tokenOffset > 0) {
      // The last page emptied (revoked or expired): show the one before.
      tokenOffset = Math.max(0, tokenOffset - PAGE);
      return loadTokens();
    }
    tokenRows.replaceChildren(
      ...r.tokens.map((t) =>
        h(
          'tr',
          { 'data-token': t.jti },
          h('td', { class: 'secret' }, t.jti),
          h('td', {}, when(t.issued_at)),
          h('td', {}, when(t.expires_at)),
          h('td', {}, t.client_id),
          h('td', {}, t.subject_user_id || '—'),
          h('td', {}, t.resource_id),
          h('td', {}, t.scopes.join(' ')),
          h(
            'td',
            {},
            h(
              'button',
              {
                type: 'button',
                'aria-label': `Revoke live token ${t.jti}`,
                onclick: run('Revoke', async () => {
                  if (!confirm(`Revoke token ${t.jti} of ${t.client_id}?`)) return;
                  const x = await api.send('DELETE', `/tokens/${encodeURIComponent(t.jti)}`);
                  await loadTokens();
                  api.say(`Revoked ${t.jti} (${x.revoked} with what was exchanged from it).`);
                }),
              },
              'Revoke',
            ),
          ),
        ),
      ),
    );
    const first = r.tokens.length ? tokenOffset + 1 : 0;
    tokenCount.textContent = `Tokens ${first}–${tokenOffset + r.tokens.length} of ${r.count} live.`;
    prev.disabled = tokenOffset === 0;
    next.disabled = tokenOffset + r.tokens.length >= r.count;
    return r.count;
  }
  const searchTokens = run('Live tokens', async () => {
    tokenOffset = 0;
    api.say(`${await loadTokens()} live tokens.`);
  });
  prev.addEventListener(
    'click',
    run('Previous tokens', async () => {
      tokenOffset = Math.max(0, tokenOffset - PAGE);
      await loadTokens();
    }),
  );
  next.addEventListener(
    'click',
    run('Next tokens', async () => {
      tokenOffset += PAGE;
      await loadTokens();
    }),
  );

  // Audit
  const aAction = h('input', { id: 'audit-action', placeholder: 'token.issued' });
  const aActor = h('input', { id: 'audit-actor' });
  const aClient = h('input', { id: 'audit-client' });
  const aSince = sinceSelect('audit-since');
  const auditRows = h('tbody');
  const searchAudit = run('Audit', async () => {
    const q = new URLSearchParams({ since: sinceIso(aSince.value), limit: '200' });
    if (aAction.value) q.set('action', aAction.value);
    if (aActor.value) q.set('actor_id', aActor.value);
    if (aClient.value) q.set('client_id', aClient.value);
    const events = await api.get(`/audit?${q}`);
    auditRows.replaceChildren(
      ...events.map((e) =>
        h(
          'tr',
          { 'data-action': e.action },
          h('td', {}, when(e.created_at)),
          h('td', {}, e.action),
          h('td', {}, e.actor_id),
          h('td', {}, e.client_id),
          h('td', {}, e.ip),
          h('td', {}, e.detail),
        ),
      ),
    );
    api.say(`${events.length} audit events.`);
  });

  root.append(
    h('h3', {}, 'Tokens issued per hour'),
    figure,
    h(
      'form',
      { onsubmit: searchIssuances },
      h('h3', {}, 'Issuances'),
      h('label', { for: 'iss-user' }, 'User ID'),
      iUser,
      h('label', { for: 'iss-client' }, 'Client ID'),
      iClient,
      h('label', { for: 'iss-resource' }, 'Resource (ID, slug or URI)'),
      iResource,
      h('label', { for: 'iss-jti' }, 'Token ID (jti)'),
      iJti,
      h('label', { for: 'iss-since' }, 'Issued'),
      iSince,
      h('p', {}, h('button', { type: 'submit' }, 'Find issuances')),
    ),
    table(
      'Issuances found',
      ['Issued (UTC)', 'Client', 'User', 'Resource', 'Scopes', 'Type', 'Exchange', 'State', 'Actions'],
      issuanceRows,
    ),
    issuanceDetail,
    h(
      'form',
      { onsubmit: searchTokens },
      h('h3', {}, 'Live access tokens'),
      h('label', { for: 'tok-client' }, 'Of client (ID, optional)'),
      tClient,
      h('label', { for: 'tok-user' }, 'Of user (ID, optional)'),
      tUser,
      h('p', {}, h('button', { type: 'submit' }, 'Show live tokens')),
    ),
    table(
      'Live access tokens',
      ['Token ID (jti)', 'Issued (UTC)', 'Expires (UTC)', 'Client', 'User', 'Resource', 'Scopes', 'Actions'],
      tokenRows,
    ),
    tokenCount,
    h('p', {}, prev, ' ', next),
    h(
      'form',
      { onsubmit: searchAudit },
      h('h3', {}, 'Audit log'),
      h('label', { for: 'audit-action' }, 'Action'),
      aAction,
      h('label', { for: 'audit-actor' }, 'Actor ID'),
      aActor,
      h('label', { for: 'audit-client' }, 'Client ID'),
      aClient,
      h('label', { for: 'audit-since' }, 'When'),
      aSince,
      h('p', {}, h('button', { type: 'submit' }, 'Show events')),
    ),
    table('Audit events', ['When (UTC)', 'Action', 'Actor', 'Client', 'Address', 'Detail'], auditRows),
  );
  await loadTokens();
  await searchAudit();
}
