/**
 * Editing in place on the auth server's console pages (Resources and policies, Identity providers), in a
 * real browser at a tablet and a phone viewport: every edit form is pre-filled, saves through the admin
 * API (checked there), shows the API's reason for a refused edit and changes nothing then, and axe-core
 * finds no WCAG 2.x A/AA violation in any of the new views.
 */
import type { Browser as Chromium, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from '../helpers/axe.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { signInToConsole, VIEWPORTS } from '../helpers/console.ts';
import { type AuthHub, adminClient, siteResourceUri, startAuthHub } from './helpers.ts';

let browser: Chromium;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

interface ResourceView {
  id: string;
  slug: string;
  uri: string;
  display_name: string;
  backend_kind: string;
  broker_provider_id: string;
  scopes: Array<{ name: string; description?: string; upstream?: string }>;
  policy: {
    exchange: { allowed_client_ids: string[] };
    runtime: { client_ids: string[] };
    connect?: { allowed_return_urls: string[] };
  };
}

describe.each(VIEWPORTS)('editing auth records in the console (%s)', (_name, viewport) => {
  let h: AuthHub;
  let page: Page;
  let siteSlug: string;
  const foreign: string[] = [];

  const get = async <T>(path: string): Promise<T> => {
    const r = await h.admin('GET', `/admin${path}`);
    expect(r.status, path).toBe(200);
    return r.body as T;
  };
  const post = async <T>(path: string, body: unknown): Promise<T> => {
    const r = await h.admin('POST', `/admin${path}`, body);
    expect(r.status, path).toBe(201);
    return r.body as T;
  };
  const resource = async (slug: string) => (await get<ResourceView[]>(`/resources?slug=${slug}`))[0]!;
  const said = (text: string | RegExp) => page.locator('#say:not(.bad)', { hasText: text }).waitFor();
  const refused = (text: string | RegExp) => page.locator('#say.bad', { hasText: text }).waitFor();
  const button = (name: string) => page.getByRole('button', { name, exact: true });
  /** Opens a page afresh (following the link to the page already shown would not render it again). */
  async function open(title: string, ready: string) {
    await page.getByRole('link', { name: title, exact: true }).click();
    await page.locator('#page-title', { hasText: title }).waitFor();
    await page.reload();
    await page.locator('#page-title', { hasText: title }).waitFor();
    await page.locator('#page-body', { hasText: ready }).first().waitFor();
  }

  beforeAll(async () => {
    h = await startAuthHub({
      plugins: ['console', 'lighting', 'auth'],
      config: {
        plugins: {
          auth: {
            oidc: {
              enabled: true,
              providers: [
                {
                  id: 'home',
                  display_name: 'Home Sign-In',
                  issuer: 'https://login.example',
                  client_id: 'hearth',
                },
              ],
            },
          },
        },
      },
    });
    const siteUri = await siteResourceUri(h);
    siteSlug = (await get<ResourceView[]>('/resources')).find((r) => r.uri === siteUri)!.slug;
    const context = await browser.newContext({ viewport });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('dialog', (d) => void d.accept());
    page.on('request', (r) => {
      if (!r.url().startsWith(h.adminUrl) && !r.url().startsWith('data:')) foreign.push(r.url());
    });
    await signInToConsole(page, h.adminUrl, h.adminKey);
    await page.locator('#page-body', { hasText: 'Plugins' }).waitFor();
  });

  afterAll(async () => {
    await page?.context().close();
    await h?.stop();
  });

  it('edits a resource in place: name, scopes, backend, policies; a refused edit changes nothing', async () => {
    const agent = await adminClient(h, { client_name: 'Calendar agent', scope: '' });
    const github = await post<{ id: string }>('/broker-providers', {
      slug: 'github',
      display_name: 'GitHub',
      protocol: 'oauth2',
      config_data: { client_id: 'abc' },
    });
    await post('/resources', {
      slug: 'calendar',
      uri: '',
      backend_kind: 'mint',
      display_name: 'Calendar',
      scopes: [{ name: 'calendar:read' }, { name: 'calendar:write' }],
    });
    await open('Resources and policies', 'New resource');
    await button('Edit resource calendar').click();
    const form = page.locator('#resource-edit');
    expect(await form.getByLabel('Display name').inputValue()).toBe('Calendar');
    expect(await form.getByLabel(/^Scopes, one a line/).inputValue()).toBe('calendar:read\ncalendar:write');
    expect(await axeViolations(page)).toEqual([]);

    await form.getByLabel('Display name').fill('Family calendar');
    await form.getByLabel('Backend').selectOption('broker');
    await form.getByLabel(/^Broker provider/).selectOption(github.id);
    await form
      .getByLabel(/^Scopes, one a line/)
      .fill('calendar:read | Read events | calendar.readonly\ncalendar:write | Change events');
    await form.getByLabel(/obtain tokens by exchange/).fill(agent.client_id);
    await form.getByLabel(/act as the resource/).fill(agent.client_id);
    await form.getByLabel('Connect return URLs, one a line').fill('https://app.example/done');
    await button('Save resource calendar').click();
    await said('Saved resource calendar.');
    await form.locator('form').waitFor({ state: 'detached' });
    const saved = await resource('calendar');
    expect(saved).toMatchObject({
      display_name: 'Family calendar',
      backend_kind: 'broker',
      broker_provider_id: github.id,
      scopes: [
        { name: 'calendar:read', description: 'Read events', upstream: 'calendar.readonly' },
        { name: 'calendar:write', description: 'Change events' },
      ],
      policy: {
        exchange: { allowed_client_ids: [agent.client_id] },
        runtime: { client_ids: [agent.client_id] },
        connect: { allowed_return_urls: ['https://app.example/done'] },
      },
    });
    await page.locator('tr[data-resource="calendar"]', { hasText: 'brokered by github' }).waitFor();

    // Another resource's slug is refused (409): the message is the API's, the form stays, nothing changes.
    await button('Edit resource calendar').click();
    await form.getByLabel('Slug').fill(siteSlug);
    await form.getByLabel('Display name').fill('Not saved');
    await button('Save resource calendar').click();
    await refused(`Edit resource calendar: slug ${siteSlug} is taken`);
    expect(await resource('calendar')).toEqual(saved);
    // Upstream scopes on a minted resource are refused too (400).
    await form.getByLabel('Slug').fill('calendar');
    await form.getByLabel('Backend').selectOption('mint');
    await button('Save resource calendar').click();
    await refused('upstream is a non-empty string, on scopes of broker resources only');
    expect(await resource('calendar')).toEqual(saved);
    await button('Cancel editing resource calendar').click();
    await form.locator('form').waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
      'Edit resource calendar',
    );

    // A site's resource: its name and policies only.
    await button(`Edit resource ${siteSlug}`).click();
    await form.getByLabel('Display name').waitFor();
    expect(await form.getByLabel('Slug').count()).toBe(0);
    await form.getByLabel(/act as the resource/).fill(agent.client_id);
    await button(`Save resource ${siteSlug}`).click();
    await said(`Saved resource ${siteSlug}.`);
    expect((await resource(siteSlug)).policy.runtime.client_ids).toEqual([agent.client_id]);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('allows and removes connect return URLs; a refused URL shows the API’s reason', async () => {
    await open('Resources and policies', 'New resource');
    const form = page.locator('form', { hasText: 'Allow a connect return URL' });
    await form.getByLabel('Resource to connect').selectOption('calendar');
    await form.getByLabel(/^Return URL/).fill('https://app.example/other');
    await button('Allow return URL').click();
    await said('Allowed https://app.example/other for calendar.');
    const list = async () =>
      (await get<{ allowed_return_urls: string[] }>('/resources/calendar/policy/connect/allowed-return-urls'))
        .allowed_return_urls;
    expect(await list()).toEqual(['https://app.example/done', 'https://app.example/other']);
    await form.getByLabel(/^Return URL/).fill('ftp://app.example/x');
    await button('Allow return URL').click();
    await refused('Return URL: url must be http or https');
    expect(await list()).toHaveLength(2);
    await button('Remove return URL https://app.example/done of calendar').click();
    await said('Removed https://app.example/done from calendar.');
    expect(await list()).toEqual(['https://app.example/other']);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('shows a resource’s fronting links, edits a link’s scope map, refuses a bad map, deletes the link', async () => {
    await post('/resources', {
      slug: 'notes',
      uri: '',
      backend_kind: 'mint',
      display_name: 'Notes',
      scopes: [{ name: 'notes:read' }, { name: 'notes:write' }],
    });
    await post('/fronting', {
      source: 'notes',
      target: siteSlug,
      scope_map: { 'notes:read': ['lights:read'] },
    });
    await open('Resources and policies', 'New resource');
    await button('Fronting links of notes').click();
    const links = page.locator('#resource-links');
    await links.getByText(`${siteSlug}: notes:read → lights:read`).waitFor();
    expect(await links.textContent()).toContain('notes is fronted by:nothing');
    expect(await axeViolations(page)).toEqual([]);
    await button('Close the fronting links of notes').click();
    await links.locator('section').waitFor({ state: 'detached' });

    // The links themselves are edited on their own page.
    await open('Fronting links', 'New fronting link');
    const name = `the link notes to ${siteSlug}`;
    await button(`Edit ${name}`).click();
    const map = page.locator('#link-edit').getByLabel(/^Scope map/);
    expect(await map.inputValue()).toBe('notes:read=lights:read');
    expect(await axeViolations(page)).toEqual([]);
    const path = `/fronting/notes/${siteSlug}`;
    const before = await get(path);
    await map.fill('notes:read=lights:read\nnotes:write=no-such-scope');
    await button(`Save ${name}`).click();
    await refused(`scope_map: no-such-scope not scopes of ${siteSlug}`);
    expect(await get(path)).toEqual(before);
    await map.fill('notes:read=lights:read\nnotes:write=lights:read lights:write');
    await button(`Save ${name}`).click();
    await said(`Saved the link notes → ${siteSlug}.`);
    expect(((await get(path)) as { scope_map: unknown }).scope_map).toEqual({
      'notes:read': ['lights:read'],
      'notes:write': ['lights:read', 'lights:write'],
    });
    await page.locator(`tr[data-link="notes>${siteSlug}"]`, { hasText: 'notes:write →' }).waitFor();

    await button(`Delete the link notes to ${siteSlug}`).click();
    await page.locator(`tr[data-link="notes>${siteSlug}"]`).waitFor({ state: 'detached' });
    expect((await h.admin('GET', `/admin${path}`)).status).toBe(404);
  });

  it('edits an identity provider and an XAA policy in place; refused edits change nothing', async () => {
    const idp = await post<{ id: string }>('/idps', { name: 'Work IdP', issuer: 'https://idp.example' });
    await post('/idps', { name: 'Other IdP', issuer: 'https://other.example' });
    await post('/xaa/policies', { name: 'Calendar only', idp_id: idp.id, resources: ['calendar'] });
    await open('Identity providers', 'New identity provider');

    await button('Edit identity provider Work IdP').click();
    const form = page.locator('#idp-edit');
    expect(await form.getByLabel('Issuer URL').inputValue()).toBe('https://idp.example');
    expect(await form.getByLabel(/^Enabled/).isChecked()).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    const before = await get(`/idps/${idp.id}`);
    await form.getByLabel('Issuer URL').fill('https://other.example');
    await button('Save identity provider Work IdP').click();
    await refused('Edit identity provider Work IdP: an identity provider with that issuer exists');
    await form.getByLabel('Issuer URL').fill('https://idp.example/#part');
    await button('Save identity provider Work IdP').click();
    await refused('issuer must be http(s) without fragment');
    expect(await get(`/idps/${idp.id}`)).toEqual(before);

    await form.getByLabel('Provider name').fill('Work sign-in');
    await form.getByLabel('Issuer URL').fill('https://idp.example/tenant');
    await form.getByLabel('JWKS URL').fill('https://idp.example/tenant/jwks');
    await form.getByLabel(/^Audience/).fill('https://hub.example');
    await form.getByLabel(/^Enabled/).uncheck();
    await button('Save identity provider Work IdP').click();
    await said('Saved Work sign-in.');
    expect(await get(`/idps/${idp.id}`)).toMatchObject({
      name: 'Work sign-in',
      issuer: 'https://idp.example/tenant',
      jwks_uri: 'https://idp.example/tenant/jwks',
      audience: 'https://hub.example',
      enabled: false,
    });
    await page.locator('tr[data-idp="Work sign-in"]', { hasText: 'disabled' }).waitFor();

    const policy = (await get<Array<{ id: string }>>('/xaa/policies'))[0]!;
    await button('Edit policy Calendar only').click();
    const pform = page.locator('#policy-edit');
    expect(await pform.getByLabel(/^Resources/).inputValue()).toBe('calendar');
    expect(await axeViolations(page)).toEqual([]);
    const pBefore = await get(`/xaa/policies/${policy.id}`);
    await pform.getByLabel(/^Resources/).fill('calendar no-such-resource');
    await button('Save policy Calendar only').click();
    await refused('Edit policy Calendar only: unknown resource no-such-resource');
    expect(await get(`/xaa/policies/${policy.id}`)).toEqual(pBefore);
    await pform.getByLabel('Policy name').fill('Calendar and notes');
    await pform.getByLabel('Identity provider').selectOption({ label: 'Other IdP' });
    await pform.getByLabel(/^Resources/).fill('calendar notes');
    await pform.getByLabel('Scopes').fill('calendar:read');
    await pform.getByLabel('Enabled').uncheck();
    await button('Save policy Calendar only').click();
    await said('Saved policy Calendar and notes.');
    const other = (await get<Array<{ id: string; name: string }>>('/idps')).find(
      (i) => i.name === 'Other IdP',
    )!;
    expect(await get(`/xaa/policies/${policy.id}`)).toMatchObject({
      name: 'Calendar and notes',
      idp_id: other.id,
      resources: ['calendar', 'notes'],
      scopes: ['calendar:read'],
      enabled: false,
    });
    await page.locator('tr[data-policy="Calendar and notes"]').waitFor();
  });

  it('edits a broker provider without ever showing its client secret; empty keeps it, a new one replaces it', async () => {
    const made = await post<{ id: string }>('/broker-providers', {
      slug: 'photos',
      display_name: 'Photos',
      protocol: 'oauth2',
      config_data: { client_id: 'ph', client_secret: 'upstream-secret-1', scopes: 'read' },
    });
    const config = async () =>
      (await get<{ config_data: Record<string, unknown> }>(`/broker-providers/${made.id}`)).config_data;
    await open('Upstream providers', 'New broker provider');
    await button('Edit broker provider photos').click();
    const form = page.locator('#broker-edit');
    const shown = await form.getByLabel(/^Configuration/).inputValue();
    expect(JSON.parse(shown)).toEqual({ client_id: 'ph', scopes: 'read' });
    expect(await form.getByLabel(/^New client secret/).inputValue()).toBe('');
    expect(await page.content()).not.toContain('upstream-secret-1');
    expect(await axeViolations(page)).toEqual([]);

    const before = await get(`/broker-providers/${made.id}`);
    await form.getByLabel('Slug').fill('github');
    await button('Save broker provider photos').click();
    await refused('Edit broker provider photos: slug github is taken');
    expect(await get(`/broker-providers/${made.id}`)).toEqual(before);

    await form.getByLabel('Slug').fill('photos');
    await form.getByLabel('Display name').fill('Photo cloud');
    await form.getByLabel(/^Configuration/).fill('{"client_id": "ph", "scopes": "read write"}');
    await button('Save broker provider photos').click();
    await said('Saved broker provider photos.');
    // The same words each time: the closed form tells that this save is done.
    await form.locator('form').waitFor({ state: 'detached' });
    expect(await config()).toEqual({
      client_id: 'ph',
      scopes: 'read write',
      client_secret: 'upstream-secret-1',
    });
    expect((await get<{ display_name: string }>(`/broker-providers/${made.id}`)).display_name).toBe(
      'Photo cloud',
    );

    await button('Edit broker provider photos').click();
    await form.getByLabel(/^New client secret/).fill('upstream-secret-2');
    await button('Save broker provider photos').click();
    await said('Saved broker provider photos.');
    // The same words each time: the closed form tells that this save is done.
    await form.locator('form').waitFor({ state: 'detached' });
    expect(await config()).toEqual({
      client_id: 'ph',
      scopes: 'read write',
      client_secret: 'upstream-secret-2',
    });
    expect(await page.content()).not.toContain('upstream-secret-2');

    await button('Edit broker provider photos').click();
    await form.getByLabel('Remove the stored client secret').check();
    await button('Save broker provider photos').click();
    await said('Saved broker provider photos.');
    // The same words each time: the closed form tells that this save is done.
    await form.locator('form').waitFor({ state: 'detached' });
    expect(await config()).toEqual({ client_id: 'ph', scopes: 'read write' });
  });

  it('sets and clears an upstream sign-in provider’s client secret', async () => {
    const listed = async () =>
      (await get<Array<{ id: string; has_client_secret: boolean }>>('/oidc/providers')).find(
        (p) => p.id === 'home',
      )!.has_client_secret;
    await open('Upstream providers', 'Upstream sign-in providers');
    const row = page.locator('tr[data-oidc="home"]');
    await row.getByText('not set').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await button('Set the client secret of Home Sign-In').click();
    const secret = page.locator('#oidc-edit').getByLabel('New client secret for Home Sign-In');
    expect(await axeViolations(page)).toEqual([]);
    await secret.fill('x'.repeat(1025));
    await button('Save the client secret of Home Sign-In').click();
    await refused('client_secret must be 1–1024 characters');
    expect(await listed()).toBe(false);
    await secret.fill('login-secret');
    await button('Save the client secret of Home Sign-In').click();
    await said('Stored the client secret of Home Sign-In.');
    expect(await listed()).toBe(true);
    await row.getByText('set', { exact: true }).waitFor();
    expect(await page.content()).not.toContain('login-secret');

    await button('Clear the client secret of Home Sign-In').click();
    await said('Removed the client secret of Home Sign-In.');
    expect(await listed()).toBe(false);
    await row.getByText('not set').waitFor();
    expect(foreign).toEqual([]);
  });
});
