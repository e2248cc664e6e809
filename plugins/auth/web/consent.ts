import type { Context } from 'koa';
import type { HearthRouter } from '../../../core/sdk.ts';
import { IDENTITY_SCOPES } from '../domain/scopes.ts';
import { safeEqual } from '../domain/secrets.ts';
import type { AuthServices } from '../services.ts';
import { own } from '../state/collections.ts';
import type { PendingAuthorization } from '../state/pending.ts';
import { completeAuthorization, redirectToClient, saveGrant } from './authorize.ts';
import { FormError, field, readForm } from './form.ts';
import { esc, sendErrorPage, sendPage } from './html.ts';
import { consentCsrfToken, currentSession, type Session } from './session.ts';

function renderConsent(
  ctx: Context,
  s: AuthServices,
  session: Session,
  id: string,
  p: PendingAuthorization,
  status = 200,
  error?: string,
): void {
  const client = own(s.data.data.clients, p.client_id);
  const resource = own(s.data.data.resources, p.resource_id);
  const rows = p.scopes
    .map((name) => {
      const d =
        (resource?.scopes.find((x) => x.name === name) ?? IDENTITY_SCOPES.find((x) => x.name === name))
          ?.description ?? '';
      return `<label class="scope"><input type="checkbox" name="scopes" value="${esc(name)}" checked> ${esc(d || name)} <small>${esc(name)}</small></label>`;
    })
    .join('');
  sendPage(
    ctx,
    status,
    'Allow access',
    `<h1>${esc(client?.name ?? 'An application')} wants permission to access ${esc(resource?.display_name ?? 'your hub')}</h1>
${client?.registration_source === 'cimd' ? `<p>This application is published by <strong>${esc(new URL(client.cimd_url).host)}</strong>; its name is its own claim.</p>` : ''}
${error ? `<p class="error" role="alert">${esc(error)}</p>` : ''}<p>Signed in as ${esc(session.user.email)}. Untick anything you do not want to allow.</p>
<form method="post" action="/consent"><input type="hidden" name="session_id" value="${esc(id)}"><input type="hidden" name="csrf_token" value="${esc(consentCsrfToken(s, session, id))}">
${rows}<button type="submit" name="action" value="allow">Allow</button><button type="submit" name="action" value="deny">Deny</button></form>`,
  );
}

export function mountConsent(router: HearthRouter, s: AuthServices): void {
  router.get('/consent', (ctx) => {
    const id = typeof ctx.query.session_id === 'string' ? ctx.query.session_id : '';
    const session = currentSession(ctx, s);
    if (!session) {
      ctx.redirect(`/login?redirect=${encodeURIComponent(ctx.url)}`);
      ctx.status = 303;
      return;
    }
    const p = s.pending.get(id);
    if (!p || p.user_id !== session.user.id)
      return sendErrorPage(
        ctx,
        400,
        'Request expired',
        'This authorization request is unknown or has expired. Start again from the application.',
      );
    renderConsent(ctx, s, session, id, p);
  });

  router.post('/consent', async (ctx) => {
    const session = currentSession(ctx, s);
    if (!session)
      return sendErrorPage(ctx, 403, 'Not signed in', 'Sign in and start again from the application.');
    let form: URLSearchParams;
    try {
      form = await readForm(ctx);
    } catch (err) {
      if (!(err instanceof FormError)) throw err;
      return sendErrorPage(ctx, 400, 'Bad request', 'The form could not be read.');
    }
    const id = field(form, 'session_id', 128) ?? '';
    const p = s.pending.get(id);
    if (!p || p.user_id !== session.user.id)
      return sendErrorPage(
        ctx,
        400,
        'Request expired',
        'This authorization request is unknown or has expired.',
      );
    const csrf = field(form, 'csrf_token', 128);
    if (!csrf || !safeEqual(csrf, consentCsrfToken(s, session, id)))
      return sendErrorPage(ctx, 403, 'Request refused', 'The form was not sent by this page. Start again.');
    const action = field(form, 'action', 16);
    if (action === 'deny') {
      s.pending.take(id);
      void s.audit.record('consent.denied', { actor_id: session.user.id, client_id: p.client_id });
      // RFC 6749 §4.1.2.1: the refusal goes back to the client (docs/auth.md#decisions-where-the-origin-differs)
      return redirectToClient(ctx, s, p.redirect_uri, {
        error: 'access_denied',
        error_description: 'the user denied access',
        state: p.state,
      });
    }
    if (action !== 'allow') return renderConsent(ctx, s, session, id, p, 422, 'Choose Allow or Deny.');
    const chosen = [...new Set(form.getAll('scopes'))];
    if (chosen.length === 0 || !chosen.every((x) => p.scopes.includes(x))) {
      return renderConsent(ctx, s, session, id, p, 422, 'Choose at least one of the listed permissions.');
    }
    const client = own(s.data.data.clients, p.client_id);
    if (client?.status !== 'active')
      return sendErrorPage(ctx, 400, 'Unknown application', 'The application is no longer registered.');
    s.pending.take(id);
    const grant = await saveGrant(s, session.user.id, client, p.resource_id, p.scopes, chosen);
    void s.audit.record('consent.granted', {
      actor_id: session.user.id,
      client_id: client.id,
      detail: chosen.join(' '),
    });
    completeAuthorization(ctx, s, { ...p, scopes: chosen }, grant.id);
  });
}
