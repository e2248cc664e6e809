import { definePlugin } from '../../core/sdk.ts';
import type { LightingExports } from '../lighting/types.ts';
import { mountAdminClients } from './admin/clients.ts';
import { mountAdminFronting } from './admin/fronting.ts';
import { mountAdminIdps } from './admin/idps.ts';
import { mountAdminIssuedPerHour } from './admin/issued-per-hour.ts';
import { mountAdminResources } from './admin/resources.ts';
import { mountAdminSystem, syncNotices } from './admin/system.ts';
import { mountAdminTokens } from './admin/tokens.ts';
import { mountAdminUsers } from './admin/users.ts';
import { mountAdminXaa } from './admin/xaa.ts';
import { mountBrokerGrantAdmin } from './broker/admin-grants.ts';
import { mountBrokerProviderAdmin } from './broker/admin-providers.ts';
import { mountConnect } from './broker/connect-routes.ts';
import { authCommands } from './commands.ts';
import { type AuthConfig, configSchema } from './config.ts';
import { addConsolePages } from './console-pages.ts';
import { mountDiscovery, mountHealth } from './oauth/discovery.ts';
import { adminErrorBody, oauthErrorBody } from './oauth/errors.ts';
import { mountIntrospectRevoke } from './oauth/introspect-revoke.ts';
import { mountRegister } from './oauth/register.ts';
import { mountTokenEndpoint } from './oauth/token-endpoint.ts';
import { mountUserinfo } from './oauth/userinfo.ts';
import { createServices, pruneRefreshTokens, VERSION } from './setup.ts';
import { dropStaleTokenClients, siteTokenMqttHooks } from './sites/mqtt-acl.ts';
import { addSiteResource, removeSiteResource, siteResource, syncResources } from './sites/site-resources.ts';
import { createVerifier, isLive, type VerifyAccessToken } from './sites/verify.ts';
import { mountUpstreamAdmin } from './upstream/admin-routes.ts';
import { mountUpstreamLogin } from './upstream/login-routes.ts';
import { mountAuthorize } from './web/authorize.ts';
import { mountConsent } from './web/consent.ts';
import { mountLogin } from './web/login.ts';

export interface AuthExports {
  /** In-process access-token check for other plugins (e.g. translation with `{ scope: 'translate' }`). */
  verifyAccessToken: VerifyAccessToken;
}

declare module '../../core/plugin/types.ts' {
  interface PluginExportsMap {
    auth: AuthExports;
  }
}

declare module '../../core/bus/events.ts' {
  interface HearthEvents {
    /** A token was revoked: holders of open connections made with it (WebSocket, MQTT) should drop them. */
    'auth.token.revoked': { jti: string; aud: string; exp: number };
  }
}

const MAINTENANCE_MS = 60_000;

export default definePlugin<AuthConfig, AuthExports>({
  name: 'auth',
  version: VERSION,
  description: 'OAuth 2.1 authorization server: site tokens, code flow, client credentials, admin API.',
  requires: ['lighting'],
  optional: ['console'],
  configSchema,
  commands: authCommands,
  async start(ctx) {
    const s = await createServices(ctx);
    const { host, port } = ctx.config;
    // Without a host of its own the listener binds where the hub does (HEARTH_HOST). It is HTTPS when the
    // core's `http.tls` is on, and the issuer (and with it the cookies' Secure flag) follows the scheme.
    s.setIssuer((await ctx.http.listen('auth', host ? { port, host } : { port })).url);

    // Public server: OAuth endpoints parse urlencoded/JSON bodies; pages read their own forms.
    const oauth = ctx.http.router('auth', { body: { form: true, limit: '64kb' }, errorBody: oauthErrorBody });
    mountDiscovery(oauth, s);
    mountHealth(oauth, s);
    const oauthForm = ctx.http.router('auth', { body: false, errorBody: oauthErrorBody });
    mountTokenEndpoint(oauthForm, ctx.http, 'auth', s);
    mountIntrospectRevoke(oauthForm, s);
    mountRegister(oauth, s);
    const verifyAccessToken = createVerifier(s);
    mountUserinfo(oauth, s, verifyAccessToken);
    const pages = ctx.http.router('auth', { body: false });
    mountLogin(pages, s);
    mountAuthorize(pages, s);
    mountConsent(pages, s);
    mountUpstreamLogin(pages, s, s.upstreamMetadata);
    mountConnect(pages, s, s.upstreamMetadata);

    const admin = ctx.http.router('admin', { prefix: '/admin', errorBody: adminErrorBody });
    mountAdminClients(admin, s);
    mountAdminUsers(admin, s);
    mountAdminResources(admin, s);
    mountAdminFronting(admin, s);
    mountAdminIdps(admin, s);
    mountAdminXaa(admin, s);
    mountAdminTokens(admin, s);
    mountAdminSystem(admin, s);
    mountUpstreamAdmin(admin, s);
    mountAdminIssuedPerHour(admin, s);
    addConsolePages(ctx.tryUse('console'));
    mountBrokerGrantAdmin(admin, s);
    // config_data is returned byte for byte, so these routes read their bodies themselves.
    mountBrokerProviderAdmin(
      ctx.http.router('admin', { prefix: '/admin', body: false, errorBody: adminErrorBody }),
      s,
    );

    // Site tokens everywhere: a resource per lighting site, the verifier on the site API/WebSocket, MQTT ACLs.
    const lighting: LightingExports = ctx.use('lighting');
    await syncResources(s, lighting.sites.list());
    ctx.bus.on('lighting.site.created', async ({ siteId, name }) => {
      await addSiteResource(s, siteId, name);
    });
    ctx.bus.on('lighting.site.deleted', ({ siteId }) => removeSiteResource(s, siteId));
    lighting.setSiteTokenVerifier(async (token, siteId, presentation) => {
      const r = siteResource(s, siteId);
      const v = r
        ? await verifyAccessToken(token, { resource: r.id, ...(presentation ? { presentation } : {}) })
        : null;
      return v ? { scopes: v.scopes, stillValid: () => v.exp * 1000 > Date.now() && isLive(s, v) } : null;
    });
    ctx.mqtt.hooks(siteTokenMqttHooks(s, verifyAccessToken));
    // Connections opened with a token end with it: at once on revocation (and on a client's suspension or a
    // user's disablement, which announce their live tokens), within a second of expiry by the sweep.
    const dropStaleConnections = () => {
      dropStaleTokenClients(s, ctx.mqtt);
      lighting.revalidateTokenSockets();
    };
    ctx.bus.on('auth.token.revoked', dropStaleConnections);
    // Expiry announces nothing: a sweep (lighting sweeps its own sockets).
    const sweep = setInterval(() => dropStaleTokenClients(s, ctx.mqtt), 1000);
    sweep.unref();

    ctx.metrics.gauge('issuances', 'Access-token issuance records held', () => s.issuances.count());
    ctx.metrics.gauge('revoked_tokens', 'Revoked access tokens still unexpired', () =>
      s.issuances.revokedCount(),
    );
    syncNotices(s);

    const maintenance = setInterval(() => {
      void s.keys
        .prune()
        .catch((err: unknown) => ctx.log.error({ err }, 'pruning retired signing keys failed'));
      s.issuances.prune();
      s.audit.prune();
      pruneRefreshTokens(s);
      s.sessions.prune();
    }, MAINTENANCE_MS);
    maintenance.unref();

    return {
      exports: { verifyAccessToken },
      async stop() {
        clearInterval(maintenance);
        clearInterval(sweep);
        lighting.setSiteTokenVerifier(null);
        await Promise.all([
          s.data.flush(),
          s.refresh.flush(),
          s.sessions.flush(),
          s.upstream.flush(),
          s.broker.flush(),
          s.issuances.flush(),
          s.audit.flush(),
        ]);
      },
      health: () =>
        s.keys.all().length > 0 ? { status: 'ok' } : { status: 'down', detail: 'no signing key' },
    };
  },
});
