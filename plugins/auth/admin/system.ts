import type { HearthRouter } from '../../../core/sdk.ts';
import type { DcrMode } from '../config.ts';
import type { AuthServices } from '../services.ts';
import { auditAdmin, badInput, intQuery, jsonBody, str, strArray, strQuery, timeQuery } from './util.ts';

const DAY = 86_400_000;
const MODES: DcrMode[] = ['open', 'approved_redirects', 'admin_only'];

export interface Notice {
  id: string;
  severity: 'info' | 'warning';
  title: string;
  body: string;
}

/** Operator advisories computed from the live settings (also mirrored into the core's notices). */
export function computeNotices(s: AuthServices): Notice[] {
  const out: Notice[] = [];
  if (s.dcr().mode === 'open') {
    out.push({
      id: 'dcr_open',
      severity: 'warning',
      title: 'DCR is open',
      body: 'Anyone on the network can register OAuth clients. Consider approved_redirects or admin_only.',
    });
  }
  if (!s.issuer().startsWith('https:')) {
    out.push({
      id: 'tls_off',
      severity: 'warning',
      title: 'TLS is off',
      body: 'The authorization server is served over plain HTTP: passwords and codes cross the LAN unencrypted (RFC 9700 §2.6).',
    });
  }
  if (Object.keys(s.data.data.users).length === 0) {
    out.push({
      id: 'no_users',
      severity: 'info',
      title: 'No users',
      body: 'Create a user (POST /admin/users) before using the code flow.',
    });
  }
  return out;
}

export function syncNotices(s: AuthServices): void {
  const current = computeNotices(s);
  for (const id of ['dcr_open', 'tls_off', 'no_users']) {
    const n = current.find((x) => x.id === id);
    s.notices.set(id, n ? `${n.title}: ${n.body}` : null);
  }
}

const uptime = (secs: number) => `${Math.floor(secs / 3600)}h${Math.floor((secs % 3600) / 60)}m${secs % 60}s`;

export function mountAdminSystem(r: HearthRouter, s: AuthServices): void {
  r.get('/keys', (ctx) => {
    ctx.body = { keys: s.keys.all().map((k) => ({ kid: k.kid, alg: k.alg, use: 'sig', status: k.status })) };
  });
  r.post('/keys/rotate', async (ctx) => {
    const k = await s.keys.rotate();
    auditAdmin(s, ctx, 'key.rotated', { detail: k.kid });
    ctx.body = { kid: k.kid, alg: k.alg };
  });

  r.get('/settings/dcr', (ctx) => {
    ctx.body = s.dcr();
  });
  r.patch('/settings/dcr', async (ctx) => {
    const b = jsonBody(ctx);
    const mode = str(b, 'mode', true) as DcrMode;
    if (!MODES.includes(mode)) throw badInput(`mode must be one of ${MODES.join(', ')}`);
    const approved = strArray(b, 'approved_redirects', false) ?? s.dcr().approved_redirects;
    await s.data.commit((d) => {
      d.settings.dcr = { mode, approved_redirects: approved };
    });
    syncNotices(s);
    auditAdmin(s, ctx, 'dcr.mode_updated', { detail: mode });
    ctx.body = s.dcr();
  });

  r.get('/stats', (ctx) => {
    const since = Date.now() - DAY;
    ctx.body = {
      clients: Object.keys(s.data.data.clients).length,
      users: Object.keys(s.data.data.users).length,
      active_tokens_24h: s.issuances.where(
        (i) =>
          Date.parse(i.issued_at) >= since &&
          Date.parse(i.expires_at) > Date.now() &&
          !s.issuances.isRevoked(i.jti),
      ).length,
      revoked_tokens: s.issuances.revokedCount(),
      // Active broker grants: users' live connections to upstream providers.
      connections: Object.values(s.broker.data.grants).filter((g) => !g.revoked_at).length,
    };
  });

  r.get('/system/config', (ctx) => {
    ctx.body = {
      issuer: s.issuer(),
      storage: { driver: 'lowdb' },
      signing: { algorithm: 'ES256', key_store: 'keyfile' },
      // Upstream credentials and broker configs are sealed by the core's secrets facility (docs/secrets.md).
      encryption: { driver: 'aes-256-gcm' },
      dcr: { mode: s.dcr().mode },
      rate_limit: { enabled: true },
      client_credentials: { enabled: true },
      dpop: {
        enabled: s.dpop.enabled,
        ...(s.dpop.enabled ? { nonce_ttl: `${s.dpop.nonceTtl}s` } : {}),
        require_nonce: s.dpop.enabled && s.dpop.requireNonce,
      },
      token_exchange: {
        enabled: s.config.token_exchange.enabled,
        ...(s.config.token_exchange.enabled
          ? { max_chain_depth: s.config.token_exchange.max_chain_depth }
          : {}),
      },
      // Agent clients act in delegation chains (token exchange); no agent JWKS listing.
      agents: { enabled: s.config.token_exchange.enabled, jwks_listing: false },
      oidc: { enabled: s.config.oidc.enabled && s.config.oidc.providers.length > 0 },
      notices: computeNotices(s),
    };
  });

  r.get('/system/status', (ctx) => {
    const secs = Math.floor((Date.now() - s.startedAt) / 1000);
    ctx.body = {
      version: s.version,
      uptime: uptime(secs),
      uptime_secs: secs,
      subsystems: [
        { name: 'storage', status: 'ok', driver: 'lowdb' },
        { name: 'signing', status: s.keys.all().length > 0 ? 'ok' : 'down', driver: 'keyfile' },
        { name: 'public_server', status: 'ok' },
      ],
    };
  });

  r.get('/audit', (ctx) => {
    const since = timeQuery(ctx, 'since') ?? Date.now() - DAY;
    if (since < Date.now() - 30 * DAY) throw badInput('since may reach back at most 30 days');
    const until = timeQuery(ctx, 'until');
    const action = strQuery(ctx, 'action');
    const actor = strQuery(ctx, 'actor_id');
    const client = strQuery(ctx, 'client_id');
    ctx.body = s.audit.query({
      sinceMs: since,
      ...(until !== undefined ? { untilMs: until } : {}),
      ...(action ? { action } : {}),
      ...(actor ? { actor_id: actor } : {}),
      ...(client ? { client_id: client } : {}),
      limit: intQuery(ctx, 'limit', 100, 1000),
      offset: intQuery(ctx, 'offset', 0, 100_000),
    });
  });
}
