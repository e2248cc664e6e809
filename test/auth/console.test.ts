/**
 * The authorization server's pages of the operator console, in a real browser (Debian chromium via
 * playwright-core): every change goes through the admin API and is checked there, the tokens-per-hour chart
 * counts real issuances, no request leaves the hub, and axe-core finds no WCAG 2.x A/AA violation.
 */
import type { Browser as Chromium, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations } from '../helpers/axe.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { signInToConsole, VIEWPORTS } from '../helpers/console.ts';
import {
  type AuthHub,
  adminClient,
  adminUser,
  authorizeInBrowser,
  Browser,
  codeRequest,
  phoneApp,
  siteResourceUri,
  startAuthHub,
} from './helpers.ts';

describe.each(VIEWPORTS)('at a %s viewport', (_name, viewport) => {
  let h: AuthHub;
  let browser: Chromium;
  let page: Page;
  let site: string;
  const foreign: string[] = [];

  async function open(title: string, ready: string) {
    await page.getByRole('link', { name: title, exact: true }).click();
    await page.locator('#page-title', { hasText: title }).waitFor();
    await page.locator('#page-body', { hasText: ready }).first().waitFor();
  }

  const said = (text: string | RegExp) => page.locator('#say', { hasText: text }).waitFor();

  async function ccToken(id: string, secret: string): Promise<Response> {
    return fetch(`${h.auth}/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: site }),
    });
  }

  beforeAll(async () => {
    h = await startAuthHub({ plugins: ['console', 'lighting', 'auth'] });
    site = await siteResourceUri(h);
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('dialog', (d) => void d.accept());
    page.on('request', (r) => {
      if (!r.url().startsWith(h.adminUrl) && !r.url().startsWith('data:')) foreign.push(r.url());
    });
    await signInToConsole(page, h.adminUrl, h.adminKey);
    // The shell follows navigation once its first page (Status) has rendered.
    await page.locator('#page-body', { hasText: 'Plugins' }).waitFor();
    // A hub, a browser and a first page: more than the default hook time on a loaded 2-core machine.
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await h?.stop();
  });

  describe('auth server pages of the operator console', () => {
    it('lists the pages after the hub’s own', async () => {
      const links = await page.locator('#pages a').allTextContents();
      expect(links).toEqual(
        expect.arrayContaining([
          'OAuth clients',
          'Users',
          'Resources and policies',
          'Fronting links',
          'Identity providers',
          'Upstream providers',
          'Tokens and audit',
          'Auth server',
        ]),
      );
      expect(links.indexOf('OAuth clients')).toBeGreaterThan(links.indexOf('Sites'));
    });

    it('clients: creates a device client and shows its secret once; suspends it; changes the DCR mode', async () => {
      await open('OAuth clients', 'New client');
      expect(await axeViolations(page)).toEqual([]);
      await page.getByLabel('Client name').fill('Hall switch');
      await page.getByLabel('Scope ceiling (devices)').fill('lights:read');
      await page.getByLabel('Resource (devices)').selectOption({ value: site });
      await page.getByRole('button', { name: 'Create client' }).click();
      await page.locator('#new-client .secret').nth(1).waitFor();
      const id = (await page.locator('#new-client .secret').first().textContent())!;
      const secret = (await page.locator('#new-client .secret').nth(1).textContent())!;
      expect((await ccToken(id, secret)).status).toBe(200);
      const view = (await h.admin('GET', `/admin/clients/${id}`)).body as Record<string, unknown>;
      expect(view).toMatchObject({ name: 'Hall switch', scope: 'lights:read', resources: [site] });
      expect(await axeViolations(page)).toEqual([]);

      await page.getByRole('button', { name: 'Suspend Hall switch' }).click();
      await page.getByRole('button', { name: 'Reactivate Hall switch' }).waitFor();
      expect(((await h.admin('GET', `/admin/clients/${id}`)).body as { status: string }).status).toBe(
        'suspended',
      );
      expect((await ccToken(id, secret)).status).toBe(401);

      await page.getByLabel('Mode', { exact: true }).selectOption('admin_only');
      await page.getByRole('button', { name: 'Save mode' }).click();
      await said('admin_only');
      expect(((await h.admin('GET', '/admin/settings/dcr')).body as { mode: string }).mode).toBe(
        'admin_only',
      );
    });

    it('users: creates a user and disables them', async () => {
      await open('Users', 'New user');
      await page.getByLabel('Email').fill('pat@home.test');
      await page.getByLabel('Display name').fill('Pat');
      await page.getByLabel('Password (at least 8 characters)').fill('long enough secret');
      await page.getByRole('button', { name: 'Create user' }).click();
      await page.getByRole('button', { name: 'Disable pat@home.test' }).click();
      await page.getByRole('button', { name: 'Enable pat@home.test' }).waitFor();
      const users = (await h.admin('GET', '/admin/users')).body as Array<{ email: string; status: string }>;
      expect(users.find((u) => u.email === 'pat@home.test')?.status).toBe('disabled');
      expect(await axeViolations(page)).toEqual([]);
    });

    it('users: shows what a user granted and revokes a consent grant', async () => {
      const quinn = await adminUser(h, 'quinn@home.test');
      const app = await phoneApp(h);
      const flow = await codeRequest(app.config, { resource: site, scope: 'lights:read' });
      await authorizeInBrowser(new Browser(h.auth), flow.url, quinn);
      const grants = (await h.admin('GET', `/admin/users/${quinn.id}/grants`)).body as {
        consent_grants: Array<{ id: string; revoked_at?: string }>;
      };
      expect(grants.consent_grants).toHaveLength(1);
      const grantId = grants.consent_grants[0]!.id;
      await page.reload();
      await page.locator('#page-body', { hasText: 'New user' }).waitFor();
      await page.getByRole('button', { name: 'Grants of quinn@home.test' }).click();
      await page.locator(`tr[data-grant="${grantId}"]`).waitFor();
      expect(await page.locator(`tr[data-grant="${grantId}"]`).textContent()).toContain('Phone app');
      expect(await axeViolations(page)).toEqual([]);
      await page.getByRole('button', { name: 'Revoke the consent of quinn@home.test for Phone app' }).click();
      await page.locator(`tr[data-grant="${grantId}"] td`, { hasText: 'revoked' }).waitFor();
      const after = (await h.admin('GET', `/admin/users/${quinn.id}/grants`)).body as typeof grants;
      expect(after.consent_grants[0]!.revoked_at).toBeTruthy();
    });

    it('resources: creates a resource, puts a client on its exchange policy, links it to the site (dry run first)', async () => {
      const agent = await adminClient(h, { client_name: 'Calendar agent', scope: '' });
      await open('Resources and policies', 'New resource');
      await page.getByLabel('Slug').fill('calendar');
      await page.getByLabel('Display name').fill('Calendar');
      await page.getByLabel('Scopes (space-separated)').fill('calendar:read calendar:write');
      await page.getByRole('button', { name: 'Create resource' }).click();
      await page.locator('tr[data-resource="calendar"]').waitFor();

      await page.getByLabel('Resource', { exact: true }).selectOption('calendar');
      await page.getByLabel('Client', { exact: true }).selectOption(agent.client_id);
      await page.getByRole('button', { name: 'Add to policy' }).click();
      await page
        .getByRole('button', { name: `Remove ${agent.client_id} from the exchange list of calendar` })
        .waitFor();
      const calendar = (
        (await h.admin('GET', '/admin/resources?slug=calendar')).body as Array<{
          policy: { exchange: { allowed_client_ids: string[] } };
        }>
      )[0]!;
      expect(calendar.policy.exchange.allowed_client_ids).toEqual([agent.client_id]);

      const siteSlug = (
        (await h.admin('GET', '/admin/resources')).body as Array<{ slug: string; uri: string }>
      ).find((r) => r.uri === site)!.slug;
      await open('Fronting links', 'New fronting link');
      await page.getByLabel('Source resource').selectOption('calendar');
      await page.getByLabel('Target resource').selectOption(siteSlug);
      await page.getByLabel(/Scope map/).fill('calendar:read=lights:read');
      await page.getByLabel('Only check (dry run)').check();
      await page.getByRole('button', { name: 'Create link' }).click();
      await said('nothing saved');
      expect((await h.admin('GET', '/admin/fronting')).body).toEqual([]);
      // A bad map is refused with the API's reason.
      await page.getByLabel(/Scope map/).fill('calendar:read=no-such-scope');
      await page.getByRole('button', { name: 'Create link' }).click();
      await said('Fronting link: scope_map: no-such-scope not scopes of');
      await page.getByLabel('Only check (dry run)').uncheck();
      await page.getByLabel(/Scope map/).fill('calendar:read=lights:read');
      await page.getByRole('button', { name: 'Create link' }).click();
      await page.locator(`tr[data-link="calendar>${siteSlug}"]`).waitFor();
      expect((await h.admin('GET', '/admin/fronting')).body).toMatchObject([
        { source_slug: 'calendar', target_slug: siteSlug, scope_map: { 'calendar:read': ['lights:read'] } },
      ]);
      expect(await axeViolations(page)).toEqual([]);
    });

    it('identity providers: adds one with a policy and a subject mapping; the upstream providers page shows the broker providers', async () => {
      await open('Identity providers', 'New identity provider');
      await page.getByLabel('Provider name').fill('Work IdP');
      await page.getByLabel('Issuer URL').fill('https://idp.example');
      await page.getByLabel('JWKS URL').fill('https://idp.example/jwks');
      await page.getByRole('button', { name: 'Add identity provider' }).click();
      await page.locator('tr[data-idp="Work IdP"]').waitFor();
      await page.getByLabel('Policy name').fill('Calendar only');
      await page.locator('#policy-resources').fill('calendar');
      await page.getByRole('button', { name: 'Add policy' }).click();
      await said('Added policy');
      await page.getByLabel('Subject at the provider').fill('emp-42');
      await page.getByLabel('Local user').selectOption({ label: 'pat@home.test' });
      await page.getByRole('button', { name: 'Add mapping' }).click();
      await said('Mapped emp-42');
      const idps = (await h.admin('GET', '/admin/idps')).body as Array<{ id: string; issuer: string }>;
      expect(idps.map((i) => i.issuer)).toEqual(['https://idp.example']);
      const policies = (await h.admin('GET', '/admin/xaa/policies')).body as Array<{
        name: string;
        resources: string[];
      }>;
      expect(policies).toMatchObject([{ name: 'Calendar only', resources: expect.any(Array) }]);
      const mappings = (await h.admin('GET', '/admin/xaa/subject-mappings')).body as Array<{
        idp_subject: string;
      }>;
      expect(mappings.map((m) => m.idp_subject)).toEqual(['emp-42']);
      // Broker providers: a table when the admin API has them, otherwise a sentence saying so.
      await open('Upstream providers', 'Broker providers');
      const brokers = await h.admin('GET', '/admin/broker-providers');
      if (brokers.status === 200) {
        await page.getByRole('table', { name: 'Broker providers' }).waitFor();
        await page.getByLabel('Slug', { exact: true }).fill('github');
        await page.getByLabel('Display name', { exact: true }).fill('GitHub');
        await page
          .getByLabel('Configuration (JSON, stored as given)')
          .fill('{"client_id": "abc", "n": 1.50}');
        await page.getByRole('button', { name: 'Create broker provider' }).click();
        await page.locator('tr[data-broker="github"]').waitFor();
        const made = (await h.admin('GET', '/admin/broker-providers')).body as Array<{
          slug: string;
          protocol: string;
        }>;
        expect(made).toMatchObject([{ slug: 'github', protocol: 'oauth2' }]);
        expect(await axeViolations(page)).toEqual([]);
        await page.getByRole('button', { name: 'Delete broker provider github' }).click();
        await page.locator('tr[data-broker="github"]').waitFor({ state: 'detached' });
        expect((await h.admin('GET', '/admin/broker-providers')).body).toEqual([]);
      } else await page.locator('#broker-providers', { hasText: 'not available' }).waitFor();
      expect(await axeViolations(page)).toEqual([]);
    });

    it('tokens and audit: the chart counts the tokens issued this hour; issuances by client; revoke; audit by action', async () => {
      const device = await adminClient(h, { client_name: 'Sensor', scope: 'lights:read', resources: [site] });
      for (let n = 0; n < 5; n++)
        expect((await ccToken(device.client_id, device.client_secret!)).status).toBe(200);
      const per = (await h.admin('GET', '/admin/stats/issued-per-hour?hours=24')).body as {
        hours: Array<{ start: string; count: number }>;
        total: number;
      };
      expect(per.hours).toHaveLength(24);
      expect(Date.parse(per.hours[1]!.start) - Date.parse(per.hours[0]!.start)).toBe(3_600_000);
      expect(per.total).toBeGreaterThanOrEqual(5);
      for (const bad of ['0', '721', 'x', '1&hours=2'])
        expect((await h.admin('GET', `/admin/stats/issued-per-hour?hours=${bad}`)).status, bad).toBe(400);
      await open('Tokens and audit', 'Audit log');
      // The bars are the hours of the API's answer; their sum is the total the caption states.
      const counts = (
        await page
          .locator('#issued-chart rect')
          .evaluateAll((rs) => rs.map((r) => r.getAttribute('data-count')))
      ).map(Number);
      expect(counts).toHaveLength(24);
      const caption = (await page.locator('figcaption').textContent())!;
      const total = Number(/: (\d+) in all/.exec(caption)![1]);
      expect(counts.reduce((a, b) => a + b, 0)).toBe(total);
      expect(total).toBeGreaterThanOrEqual(5);
      expect(await page.getByRole('img', { name: /Access tokens issued per hour/ }).count()).toBe(1);
      expect(await axeViolations(page)).toEqual([]);

      await page.getByLabel('Client ID').first().fill(device.client_id);
      await page.getByRole('button', { name: 'Find issuances' }).click();
      await said(/^5 issuances/);
      const first = (await page.locator('tr[data-jti]').first().getAttribute('data-jti'))!;
      await page.getByRole('button', { name: `Revoke token ${first}` }).click();
      await said(`Revoked ${first}`);
      await page.locator(`tr[data-jti="${first}"] td`, { hasText: 'revoked' }).waitFor();
      const rev = (await h.admin('GET', `/admin/issuances?jti=${first}`)).body as {
        issuances: Array<{ revoked_at?: string }>;
      };
      expect(rev.issuances[0]!.revoked_at).toBeTruthy();

      await page.getByLabel('Action').fill('client.suspended');
      await page.getByRole('button', { name: 'Show events' }).click();
      await said(/^1 audit events/);
      expect(await page.locator('tr[data-action]').allTextContents()).toHaveLength(1);
      expect(await axeViolations(page)).toEqual([]);
    });

    it('auth server: status, notices, configuration and keys; rotation adds keys', async () => {
      await open('Auth server', 'Signing keys');
      await page.locator('tr[data-kid]').nth(1).waitFor();
      expect(await page.locator('tr[data-kid]').count()).toBe(2);
      // DCR is admin_only now, TLS is off: the tls_off notice shows.
      expect(await page.locator('#auth-notices').textContent()).toMatch(/warning/);
      expect(await axeViolations(page)).toEqual([]);
      await page.getByRole('button', { name: 'Rotate signing keys' }).click();
      await said('New current key');
      await page.locator('tr[data-kid]').nth(3).waitFor();
      const keys = (await h.admin('GET', '/admin/keys')).body as { keys: unknown[] };
      expect(keys.keys).toHaveLength(4);
      expect(foreign).toEqual([]);
    });
  });
});
