import type { UpstreamProviderConfig } from '../config.ts';
import type { AuthServices } from '../services.ts';
import { esc } from '../web/html.ts';

/** The upstream providers offered for sign-in (none while `oidc.enabled` is false). */
export const loginProviders = (s: AuthServices): UpstreamProviderConfig[] =>
  s.config.oidc.enabled ? s.config.oidc.providers : [];

export const findLoginProvider = (s: AuthServices, id: string): UpstreamProviderConfig | undefined =>
  loginProviders(s).find((p) => p.id === id);

/** The secret name under which a provider's client secret is kept (`ctx.secrets`). */
export const clientSecretName = (providerId: string): string => `oidc.${providerId}.client_secret`;

/** One sign-in link per provider for the login page; the target after sign-in travels along. */
export function providerButtons(s: AuthServices, redirect: string): string {
  const list = loginProviders(s);
  if (list.length === 0) return '';
  const links = list
    .map(
      (p) =>
        `<p><a class="provider" href="/oidc/start?provider=${encodeURIComponent(p.id)}&amp;redirect=${esc(encodeURIComponent(redirect))}">Sign in with ${esc(p.display_name || p.id)}</a></p>`,
    )
    .join('');
  return `<nav aria-label="Other ways to sign in">${links}</nav>`;
}
