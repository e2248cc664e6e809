/**
 * The auth console's in-place edits and revocation views, in a real browser (Debian chromium via
 * playwright-core) at a tablet and a phone viewport: editing a client or a user, a user's tokens and
 * browser sessions, the live token list and an issuance's details. Every effect is checked through the
 * admin API (and, for a client, by the authorization endpoint itself); a refused edit shows the API's
 * reason and changes nothing; axe-core finds no WCAG 2.x A/AA violation in any of the new views.
 */
import * as oidc from 'openid-client';
import type { BrowserContext, Browser as Chromium, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from '../helpers/axe.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { renderAfresh } from '../helpers/console.ts';
import {
  type AuthHub,
  adminClient,
  adminUser,
  authorizeInBrowser,
  Browser,
  codeRequest,
  login,
  phoneApp,
  siteResourceUri,
  startAuthHub,
} from './helpers.ts';

let h: AuthHub;
let browser: Chromium;
let site: string;

beforeAll(async () => {
  h = await startAuthHub({ plugins: ['console', 'lighting', 'auth'] });
  site = await siteResourceUri(h);
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await h?.stop();
});

interface ClientView {
  name: string;
  redirect_uris: string[];
  grant_types: string[];
  scope: string;
  resources: string[];
  id_token_signed_response_alg: string;
  status: string;
}
interface UserView {
  email: string;
  name: string;
}

const getClient = async (id: string) => (await h.admin('GET', `/admin/clients/${id}`)).body as ClientView;
const getUser = async (id: string) => (await h.admin('GET', `/admin/users/${id}`)).body as UserView;
const liveJtis = async (query: string) =>
  ((await h.admin('GET', `/admin/tokens?${query}`)).body as { tokens: Array<{ jti: string }> }).tokens.map(
    (t) => t.jti,
  );

/** What the authorization endpoint answers a code request of the client with this redirect URI. */
async function authorizeStatus(clientId: string, redirectUri: string): Promise<number> {
  const config = await oidc.discovery(new URL(h.auth), clientId, undefined, oidc.None(), {
    execute: [oidc.allowInsecureRequests],
    algorithm: 'oauth2',
  });
  const flow = await codeRequest(config, { resource: site, scope: 'lights:read', redirect_uri: redirectUri });
  return (await new Browser(h.auth).fetch(flow.url)).status;
}

async function ccToken(id: string, secret: string): Promise<void> {
  const res = await fetch(`${h.auth}/oauth/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource: site }),
  });
  expect(res.status).toBe(200);
}

describe.each([
  { view: 'tablet', width: 1024, height: 768 },
  { view: 'phone', width: 390, height: 844 },
])('auth console edits at the $view viewport ($width×$height)', ({ view, width, height }) => {
  let context: BrowserContext;
  let page: Page;

  const said = (text: string | RegExp) => page.locator('#say', { hasText: text }).waitFor();
  const saidBad = async (text: string) => {
    await said(text);
    expect(await page.locator('#say').getAttribute('class')).toBe('bad');
  };
  const focused = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label'));
  /** Opens a page afresh (rendered anew each time: what the API holds now, no form left open). */
  async function open(title: string, ready: string) {
    const hash = await page.getByRole('link', { name: title, exact: true }).getAttribute('href');
    await renderAfresh(page, hash as string);
    await page.locator('#page-title', { hasText: title }).waitFor();
    await page.locator('#page-body', { hasText: ready }).first().waitFor();
  }

  beforeAll(async () => {
    context = await browser.newContext({ viewport: { width, height } });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('dialog', (d) => void d.accept());
    await page.goto(`${h.adminUrl}/admin/ui/`);
    await page.getByLabel('Admin key').fill(h.adminKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#page-body', { hasText: 'Plugins' }).waitFor();
  });

  afterAll(async () => {
    await context?.close();
  });

  it('clients: edits an app in place; the authorization endpoint follows; a bad URI is refused, nothing changes', async () => {
    const name = `Tablet app ${view}`;
    const app = await adminClient(h, {
      client_name: name,
      redirect_uris: ['http://127.0.0.1/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    });
    const id = app.client_id;
    expect(await authorizeStatus(id, 'http://127.0.0.1:49152/callback')).toBe(303);
    await open('OAuth clients', 'New client');
    await page.getByRole('button', { name: `Edit ${name}`, exact: true }).click();
    const form = page.locator(`tr[data-edit="${id}"]`);
    await form.waitFor();
    expect(await form.getByLabel('Name', { exact: true }).inputValue()).toBe(name);
    expect(await form.getByLabel('Redirect URIs (one per line)').inputValue()).toBe(
      'http://127.0.0.1/callback',
    );
    expect(await form.getByLabel(/Authorization code/).isChecked()).toBe(true);
    expect(await form.getByLabel(/Refresh token/).isChecked()).toBe(true);
    expect(await form.getByLabel(/Client credentials/).isChecked()).toBe(false);
    expect(await form.getByLabel('ID token signing algorithm').inputValue()).toBe('RS256');
    expect(await form.textContent()).toContain('authentication none, application type native');
    expect(await axeViolations(page)).toEqual([]);

    // Refused: the API's reason is shown, the form stays open, the client is as it was.
    await form.getByLabel('Redirect URIs (one per line)').fill('http://evil.example/cb');
    await form.getByRole('button', { name: `Save ${name}` }).click();
    await saidBad(`Edit ${name}: http redirect URIs must be loopback`);
    await form.waitFor();
    expect(await getClient(id)).toMatchObject({
      name,
      redirect_uris: ['http://127.0.0.1/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
    });

    const renamed = `Wall tablet ${view}`;
    await form.getByLabel('Name', { exact: true }).fill(renamed);
    await form
      .getByLabel('Redirect URIs (one per line)')
      .fill('http://127.0.0.1/cb2\ncom.example.tablet:/cb');
    await form.getByLabel(/Refresh token/).uncheck();
    await form.getByLabel(/Scope ceiling/).fill('lights:read');
    await form.getByLabel(/Lighting site/).check();
    await form.getByLabel('ID token signing algorithm').selectOption('ES256');
    await form.getByRole('button', { name: `Save ${name}` }).click();
    await said(`Saved ${renamed}.`);
    await form.waitFor({ state: 'detached' });
    expect(await focused()).toBe(`Edit ${renamed}`);
    expect(await getClient(id)).toMatchObject({
      name: renamed,
      redirect_uris: ['http://127.0.0.1/cb2', 'com.example.tablet:/cb'],
      grant_types: ['authorization_code'],
      scope: 'lights:read',
      resources: [site],
      id_token_signed_response_alg: 'ES256',
    });
    await page.locator(`tr[data-client="${id}"] td`, { hasText: renamed }).waitFor();
    // The authorization endpoint now refuses the old redirect URI and takes the new one.
    expect(await authorizeStatus(id, 'http://127.0.0.1:49152/callback')).toBe(400);
    expect(await authorizeStatus(id, 'http://127.0.0.1:49152/cb2')).toBe(303);

    // Cancel leaves the client alone; an unchanged Save says so and sends nothing.
    await page.getByRole('button', { name: `Edit ${renamed}`, exact: true }).click();
    await form.getByLabel('Name', { exact: true }).fill('Never saved');
    await form.getByRole('button', { name: `Cancel editing ${renamed}` }).click();
    await form.waitFor({ state: 'detached' });
    expect(await focused()).toBe(`Edit ${renamed}`);
    await page.getByRole('button', { name: `Edit ${renamed}`, exact: true }).click();
    await form.getByRole('button', { name: `Save ${renamed}` }).click();
    await said(`${renamed}: nothing changed.`);
    await form.waitFor({ state: 'detached' });
    expect((await getClient(id)).name).toBe(renamed);
  });

  it('clients: the status and source filters list what the API answers for them', async () => {
    const gone = await adminClient(h, { client_name: `Old meter ${view}` });
    expect((await h.admin('PATCH', `/admin/clients/${gone.client_id}/suspend`)).status).toBe(200);
    await open('OAuth clients', 'New client');
    const suspended = (
      (await h.admin('GET', '/admin/clients?status=suspended')).body as Array<{ id: string }>
    ).map((c) => c.id);
    expect(suspended).toContain(gone.client_id);
    await page.getByLabel('Status filter').selectOption('suspended');
    await said(`${suspended.length} clients shown.`);
    const shown = await page
      .locator('tr[data-client]')
      .evaluateAll((rs) => rs.map((r) => r.getAttribute('data-client')));
    expect(shown).toEqual(suspended);
    await page.getByLabel('Source filter').selectOption('dcr');
    await said('0 clients shown.');
    await expect.poll(() => page.locator('tr[data-client]').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('users: edits a user in place (the password is never pre-filled); a taken email is refused', async () => {
    const ann = await adminUser(h, `ann-${view}@home.test`);
    const bob = await adminUser(h, `bob-${view}@home.test`);
    await open('Users', 'New user');
    await page.getByRole('button', { name: `Edit ${ann.email}`, exact: true }).click();
    const form = page.locator(`tr[data-edit="${ann.id}"]`);
    await form.waitFor();
    expect(await form.getByLabel('Email address').inputValue()).toBe(ann.email);
    expect(await form.getByLabel('Display name').inputValue()).toBe('Ann');
    expect(await form.getByLabel(/New password/).inputValue()).toBe('');
    expect(await form.getByLabel(/New password/).getAttribute('autocomplete')).toBe('new-password');
    expect(await axeViolations(page)).toEqual([]);

    await form.getByLabel('Email address').fill(bob.email);
    await form.getByRole('button', { name: `Save ${ann.email}` }).click();
    await saidBad(`Edit ${ann.email}: a user with this email already exists`);
    expect(await getUser(ann.id)).toMatchObject({ email: ann.email, name: 'Ann' });

    const anne = `anne-${view}@home.test`;
    await form.getByLabel('Email address').fill(anne);
    await form.getByLabel('Display name').fill('Anne');
    await form.getByLabel(/New password/).fill('a brand new secret');
    await form.getByRole('button', { name: `Save ${ann.email}` }).click();
    await said(`Saved ${anne}; their browser sessions ended.`);
    await form.waitFor({ state: 'detached' });
    expect(await focused()).toBe(`Edit ${anne}`);
    expect(await getUser(ann.id)).toMatchObject({ email: anne, name: 'Anne' });
    expect((await login(new Browser(h.auth), anne, 'a brand new secret')).status).toBe(303);
    expect((await login(new Browser(h.auth), anne, ann.password)).status).toBe(422);
  });

  it('users: a user’s tokens and sessions, revoked one by one and all sessions at once', async () => {
    const cam = await adminUser(h, `cam-${view}@home.test`);
    const app = await phoneApp(h);
    const jtis: string[] = [];
    for (let n = 0; n < 2; n++) {
      // Two browsers: two sessions, and a token from each.
      const flow = await codeRequest(app.config, { resource: site, scope: 'lights:read' });
      const cb = await authorizeInBrowser(new Browser(h.auth), flow.url, cam);
      const t = await oidc.authorizationCodeGrant(app.config, cb, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
      });
      jtis.push(JSON.parse(Buffer.from(t.access_token.split('.')[1]!, 'base64url').toString()).jti);
    }
    const sessions = async () =>
      ((await h.admin('GET', `/admin/users/${cam.id}/sessions`)).body as { sessions: Array<{ id: string }> })
        .sessions;
    expect(await sessions()).toHaveLength(2);

    await open('Users', 'New user');
    await page.getByRole('button', { name: `Tokens and sessions of ${cam.email}` }).click();
    await page.locator('#user-detail tr[data-session]').nth(1).waitFor();
    expect(await page.locator('#user-detail tr[data-token]').count()).toBe(2);
    expect(await axeViolations(page)).toEqual([]);

    await page.getByRole('button', { name: `Revoke token ${jtis[0]} of ${cam.email}` }).click();
    await said(`Revoked 1 token(s) of ${cam.email}.`);
    await page.locator(`#user-detail tr[data-token="${jtis[0]}"] td`, { hasText: 'revoked' }).waitFor();
    expect(await liveJtis(`user_id=${cam.id}`)).toEqual([jtis[1]]);

    const [first, second] = (await sessions()).map((s) => s.id);
    await page.getByRole('button', { name: `End session ${first} of ${cam.email}` }).click();
    await said(`Ended a session of ${cam.email}.`);
    await page.locator(`#user-detail tr[data-session="${first}"]`).waitFor({ state: 'detached' });
    expect((await sessions()).map((s) => s.id)).toEqual([second]);

    await page.getByRole('button', { name: `End all sessions of ${cam.email}` }).click();
    await said(`Ended 1 session(s) of ${cam.email}.`);
    await page.locator('#user-detail', { hasText: 'has no browser session' }).waitFor();
    expect(await sessions()).toEqual([]);
    // Ending sessions leaves the tokens apps hold; signing out everywhere ends them, and the view follows.
    expect(await liveJtis(`user_id=${cam.id}`)).toEqual([jtis[1]]);
    await page.locator(`#user-detail tr[data-token="${jtis[1]}"] td`, { hasText: 'live' }).waitFor();
    await page.getByRole('button', { name: `Sign ${cam.email} out everywhere` }).click();
    // Counted with the refresh tokens the two sign-ins left.
    await said(new RegExp(`^${cam.email.replaceAll('.', '\\.')}: \\d+ tokens revoked, 0 sessions ended\\.$`));
    await page.locator(`#user-detail tr[data-token="${jtis[1]}"] td`, { hasText: 'revoked' }).waitFor();
    expect(await liveJtis(`user_id=${cam.id}`)).toEqual([]);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('tokens and audit: the live token list revokes a token; an issuance shows all its details', async () => {
    const meter = await adminClient(h, {
      client_name: `Meter ${view}`,
      scope: 'lights:read',
      resources: [site],
    });
    for (let n = 0; n < 3; n++) await ccToken(meter.client_id, meter.client_secret!);
    await open('Tokens and audit', 'Live access tokens');
    await page.getByLabel('Of client (ID, optional)').fill(meter.client_id);
    await page.getByRole('button', { name: 'Show live tokens' }).click();
    await said(/^3 live tokens/);
    const rows = page.locator('tr[data-token]');
    const shown = await rows.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-token')));
    expect(shown.sort()).toEqual((await liveJtis(`client_id=${meter.client_id}`)).sort());
    expect(await page.locator('#token-count').textContent()).toBe('Tokens 1–3 of 3 live.');
    expect(await page.getByRole('button', { name: 'Next tokens' }).isDisabled()).toBe(true);
    expect(await axeViolations(page)).toEqual([]);

    const jti = shown[0]!;
    await page.getByRole('button', { name: `Revoke live token ${jti}` }).click();
    await said(`Revoked ${jti}`);
    await page.locator(`tr[data-token="${jti}"]`).waitFor({ state: 'detached' });
    expect(await rows.count()).toBe(2);
    const left = await liveJtis(`client_id=${meter.client_id}`);
    expect(left).toHaveLength(2);
    expect(left).not.toContain(jti);

    // More live tokens than one page: 50 a page, Next and Previous.
    const busy = await adminClient(h, {
      client_name: `Busy ${view}`,
      scope: 'lights:read',
      resources: [site],
    });
    for (let n = 0; n < 52; n++) await ccToken(busy.client_id, busy.client_secret!);
    await page.getByLabel('Of client (ID, optional)').fill(busy.client_id);
    await page.getByRole('button', { name: 'Show live tokens' }).click();
    await said(/^52 live tokens/);
    await page.locator('#token-count', { hasText: 'Tokens 1–50 of 52 live.' }).waitFor();
    expect(await rows.count()).toBe(50);
    expect(await page.getByRole('button', { name: 'Previous tokens' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Next tokens' }).click();
    await page.locator('#token-count', { hasText: 'Tokens 51–52 of 52 live.' }).waitFor();
    const lastPage = await rows.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-token')));
    const all = await liveJtis(`client_id=${busy.client_id}&limit=1000`);
    expect(lastPage).toEqual(all.slice(50));
    expect(await page.getByRole('button', { name: 'Next tokens' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Previous tokens' }).click();
    await page.locator('#token-count', { hasText: 'Tokens 1–50 of 52 live.' }).waitFor();

    await page.getByLabel('Client ID').first().fill(meter.client_id);
    await page.getByRole('button', { name: 'Find issuances' }).click();
    await said(/^3 issuances/);
    await page.getByRole('button', { name: `Details of token ${jti}` }).click();
    await said(`Details of ${jti}`);
    const stored = (
      (await h.admin('GET', `/admin/issuances?jti=${jti}`)).body as {
        issuances: Array<Record<string, unknown>>;
      }
    ).issuances[0]!;
    const detail = (await page.locator('#issuance-detail').textContent())!;
    for (const key of ['id', 'jti', 'client_id', 'expires_at', 'revoked_at'])
      expect(detail, key).toContain(`${key}${stored[key]}`);
    expect(await axeViolations(page)).toEqual([]);
  });
});
