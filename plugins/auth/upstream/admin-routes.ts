import type { HearthRouter } from '../../../core/sdk.ts';
import { auditAdmin, badInput, jsonBody, missing, param, str } from '../admin/util.ts';
import type { AuthServices } from '../services.ts';
import { clientSecretName } from './providers.ts';

/**
 * The upstream login providers come from the configuration; their client secrets do not (a secret in a
 * config file would sit in plain text next to the data): they are set here and kept by the core's
 * secrets facility, encrypted at rest and redacted from logs. Never read back.
 */
export function mountUpstreamAdmin(r: HearthRouter, s: AuthServices): void {
  const provider = (id: string) => {
    const p = s.config.oidc.providers.find((x) => x.id === id);
    if (!p) throw missing('provider_not_found', 'no such provider in plugins.auth.oidc.providers');
    return p;
  };
  r.get('/oidc/providers', (ctx) => {
    ctx.body = s.config.oidc.providers.map((p) => ({
      id: p.id,
      display_name: p.display_name || p.id,
      issuer: p.issuer,
      client_id: p.client_id,
      scope: p.scope,
      link_verified_email: p.link_verified_email,
      create_users: p.create_users,
      enabled: s.config.oidc.enabled,
      has_client_secret: s.secrets.get(clientSecretName(p.id)) !== undefined,
    }));
  });
  r.put('/oidc/providers/:id/client-secret', async (ctx) => {
    const p = provider(param(ctx, 'id'));
    const secret = str(jsonBody(ctx), 'client_secret', true);
    if (secret.length === 0 || secret.length > 1024)
      throw badInput('client_secret must be 1–1024 characters');
    await s.secrets.set(clientSecretName(p.id), secret);
    auditAdmin(s, ctx, 'oidc_provider.secret_set', { detail: p.id });
    ctx.status = 204;
  });
  r.delete('/oidc/providers/:id/client-secret', async (ctx) => {
    const p = provider(param(ctx, 'id'));
    await s.secrets.delete(clientSecretName(p.id));
    auditAdmin(s, ctx, 'oidc_provider.secret_deleted', { detail: p.id });
    ctx.status = 204;
  });
}
