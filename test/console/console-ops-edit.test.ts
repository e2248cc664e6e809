/**
 * The console's controls for admin write routes that had none: renaming a site in place, registering and
 * renaming an MQTT device, accepting a discovered one, one site's devices, retained messages shown and
 * cleared by topic and by filter, MQTT credentials with topic filters, operator access and a chosen
 * password, and renaming a translation developer key. Each effect is checked through the API; each bad
 * input shows the API's own error and changes nothing. Tablet and phone viewports, zero axe-core
 * violations.
 */
import mqtt from 'mqtt';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTasmotaBulb } from '../../scripts/simulators/tasmota-bulb.ts';
import { axeViolations } from '../helpers/axe.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { signInToConsole } from '../helpers/console.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';

let t: TestHub;
let browser: Browser;

interface Site {
  siteid: string;
  name: string;
}
interface Device {
  protocolid: string;
  site: string;
  name?: string;
  kind: string;
}

beforeAll(async () => {
  t = await startTestHub({ plugins: ['console', 'lighting', 'translation', 'mqtt-devices'] });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

/** The admin key over the translation plugin's own admin API (main listener). */
async function translationAdmin(method: string, path: string, body?: unknown) {
  const res = await fetch(`${t.url}/v2/admin${path}`, {
    method,
    headers: {
      authorization: `DeepL-Auth-Key ${t.adminKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: answers are inspected field by field
  return (await res.json()) as any;
}

const viewports = [
  { name: 'tablet', width: 1024, height: 768 },
  { name: 'phone', width: 390, height: 844 },
];

describe.each(viewports)('console edit controls on a $name viewport', (vp) => {
  let page: Page;
  const said = (text: string | RegExp) => page.locator('#say', { hasText: text }).waitFor();
  const saidBad = (text: string | RegExp) => page.locator('#say.bad', { hasText: text }).waitFor();
  const open = async (title: string) => {
    await page.getByRole('link', { name: title, exact: true }).click();
    await page.locator('#page-title', { hasText: title }).waitFor();
  };

  beforeAll(async () => {
    page = await browser.newPage({ viewport: { width: vp.width, height: vp.height } });
    page.setDefaultTimeout(10_000);
    page.on('dialog', (d) => void d.accept());
    await signInToConsole(page, t.adminUrl, t.adminKey);
  });

  afterAll(async () => {
    await page?.close();
  });

  it('renames a site in place; a blank name shows the API error and keeps the old one', async () => {
    const site = (await t.admin('POST', '/admin/sites', { name: `Flat ${vp.name}` })).body as Site;
    await open('Sites');
    const row = page.locator(`[data-site="${site.siteid}"]`);
    await row.getByRole('button', { name: `Rename Flat ${vp.name}` }).click();
    await row.getByLabel(`New name of Flat ${vp.name}`).fill('   ');
    await row.getByRole('button', { name: `Save the name of Flat ${vp.name}` }).click();
    await saidBad('name is required');
    expect(((await t.admin('GET', `/admin/sites/${site.siteid}`)).body as Site).name).toBe(`Flat ${vp.name}`);
    expect(await axeViolations(page)).toEqual([]);

    // Cancel puts the old name back and sends nothing.
    await row.getByRole('button', { name: `Keep the name of Flat ${vp.name}` }).click();
    await said(`Flat ${vp.name} unchanged.`);
    expect(await row.locator('.site-name').innerText()).toBe(`Flat ${vp.name}`);
    await row.getByRole('button', { name: `Rename Flat ${vp.name}` }).click();

    await row.getByLabel(`New name of Flat ${vp.name}`).fill(`Home ${vp.name}`);
    await row.getByRole('button', { name: `Save the name of Flat ${vp.name}` }).click();
    await said(`Renamed Flat ${vp.name} to Home ${vp.name}.`);
    await row.getByRole('button', { name: `Rename Home ${vp.name}` }).waitFor();
    expect(((await t.admin('GET', `/admin/sites/${site.siteid}`)).body as Site).name).toBe(`Home ${vp.name}`);
    expect(await axeViolations(page)).toEqual([]);

    // Deleted elsewhere while the page showed it: the API's 404 is said, and the list catches up.
    expect((await t.admin('DELETE', `/admin/sites/${site.siteid}`)).status).toBe(204);
    await row.getByRole('button', { name: `Delete Home ${vp.name}` }).click();
    await saidBad(`no site with id ${site.siteid}`);
    await row.waitFor({ state: 'detached' });
  });

  it('registers an MQTT device by hand and renames it; a bad id shows the API error and adds nothing', async () => {
    const site = (await t.admin('POST', '/admin/sites', { name: `Garage ${vp.name}` })).body as Site;
    const id = `tasmota:garage-${vp.name}`;
    await open('MQTT devices');
    const before = ((await t.admin('GET', '/admin/mqtt/devices')).body as Device[]).length;

    await page.getByLabel('Device id').fill(`garage-${vp.name}`);
    await page.getByLabel('Site', { exact: true }).selectOption({ label: `Garage ${vp.name}` });
    await page.getByRole('button', { name: 'Register' }).click();
    await saidBad('the id must be <profile>:<address>');
    expect((await t.admin('GET', '/admin/mqtt/devices')).body).toHaveLength(before);

    await page.getByLabel('Device id').fill(id);
    await page.getByLabel('Kind').selectOption('binary');
    await page.getByLabel('Name (optional)').fill(`Door ${vp.name}`);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Register' }).click();
    await said(`Registered Door ${vp.name} on Garage ${vp.name}.`);
    const row = page.locator(`[data-mqtt-device="${id}"]`);
    await row.waitFor();
    let device = ((await t.admin('GET', '/admin/mqtt/devices')).body as Device[]).find(
      (d) => d.protocolid === id,
    );
    expect(device).toMatchObject({ site: site.siteid, kind: 'binary', name: `Door ${vp.name}` });

    await row.getByRole('button', { name: `Rename Door ${vp.name}` }).click();
    await row.getByLabel(`New name of Door ${vp.name}`).fill('x'.repeat(101));
    await row.getByRole('button', { name: `Save the name of Door ${vp.name}` }).click();
    await saidBad('name must be a string');
    // The refused name stays in the form, so it can be corrected there.
    await row.getByLabel(`New name of Door ${vp.name}`).fill(`Side door ${vp.name}`);
    await row.getByRole('button', { name: `Save the name of Door ${vp.name}` }).click();
    await said(`Door ${vp.name} renamed to Side door ${vp.name}.`);
    device = ((await t.admin('GET', '/admin/mqtt/devices')).body as Device[]).find(
      (d) => d.protocolid === id,
    );
    expect(device?.name).toBe(`Side door ${vp.name}`);
    expect(await axeViolations(page)).toEqual([]);

    // One site's devices (GET ?site=): this one on its own site, none on a site without devices.
    await t.admin('POST', '/admin/sites', { name: `Empty ${vp.name}` });
    await page.reload();
    await page.getByLabel('Show the devices of').selectOption({ label: `Garage ${vp.name}` });
    await said(`Showing the devices of Garage ${vp.name}.`);
    expect(
      await page.locator('[data-mqtt-device]').evaluateAll((rows) => rows.map((r) => r.dataset.mqttDevice)),
    ).toEqual([id]);
    await page.getByLabel('Show the devices of').selectOption({ label: `Empty ${vp.name}` });
    await page.getByText(`No MQTT devices on Empty ${vp.name}.`).waitFor();
    expect(await page.locator('[data-mqtt-device]').count()).toBe(0);
    await page.getByLabel('Show the devices of').selectOption({ label: 'every site' });
    await said('Showing every site.');

    await row.getByRole('button', { name: `Delete Side door ${vp.name}` }).click();
    await said(`Side door ${vp.name} deleted.`);
    expect(
      ((await t.admin('GET', '/admin/mqtt/devices')).body as Device[]).some((d) => d.protocolid === id),
    ).toBe(false);
  });

  it('accepts a device that announced itself (marked new) from the MQTT devices page', async () => {
    const user = `bulb-${vp.name}`;
    const password = `bulb-password-${vp.name}`;
    await t.admin('POST', '/admin/mqtt/credentials', { username: user, operator: 'readwrite', password });
    const bulb = await startTasmotaBulb({
      url: t.mqttUrl,
      username: user,
      password,
      topic: `porch_${vp.name}`,
      discovery: true,
    });
    try {
      const id = `tasmota:porch_${vp.name}`;
      const found = async () =>
        ((await t.admin('GET', '/admin/mqtt/devices')).body as Array<Device & { new: boolean }>).find(
          (d) => d.protocolid === id,
        );
      await expect.poll(async () => (await found())?.new, { timeout: 10_000 }).toBe(true);
      // A fresh load of the console (the page lists devices when it opens).
      await page.goto(`${t.adminUrl}/admin/ui/`);
      await open('MQTT devices');
      const row = page.locator(`[data-mqtt-device="${id}"]`);
      await row.getByText('new').waitFor();
      expect(await axeViolations(page)).toEqual([]);
      await row.getByRole('button', { name: /^Accept / }).click();
      await said(/ accepted\.$/);
      expect((await found())?.new).toBe(false);
      // The list reloads after the announcement: wait for it rather than read it at once.
      await row.getByRole('button', { name: /^Accept / }).waitFor({ state: 'detached' });
    } finally {
      await bulb.stop();
    }
  });

  it('creates MQTT credentials with topic filters and as an operator; a bad filter shows the API error', async () => {
    await t.admin('POST', '/admin/sites', { name: `Shed ${vp.name}` });
    await open('MQTT credentials');
    const names = async () =>
      ((await t.admin('GET', '/admin/mqtt/credentials')).body as Array<{ username: string }>).map(
        (c) => c.username,
      );

    await page.getByLabel('User name').fill(`bad-${vp.name}`);
    await page.getByLabel('Site', { exact: true }).selectOption({ label: `Shed ${vp.name}` });
    await page.getByLabel('Topic filters (optional)').fill('#');
    await page.getByRole('button', { name: 'Create' }).click();
    await saidBad("topic filter # reaches beyond the device's own topics");
    expect(await names()).not.toContain(`bad-${vp.name}`);

    // A device credential narrowed to one device's topics; the hub makes the password and shows it once.
    await page.getByLabel('User name').fill(`plug-${vp.name}`);
    await page
      .getByLabel('Topic filters (optional)')
      .fill(`tasmota/plug-${vp.name}/# stat/plug-${vp.name}/+`);
    await page.getByRole('button', { name: 'Create' }).click();
    await said(`Created plug-${vp.name}; its password is shown below.`);
    const password = await page.locator('#new-credential .secret').innerText();
    expect(password.length).toBeGreaterThanOrEqual(20);
    const list = (await t.admin('GET', '/admin/mqtt/credentials')).body as Array<{
      username: string;
      topics: string[] | null;
      operator?: string;
    }>;
    expect(list.find((c) => c.username === `plug-${vp.name}`)?.topics).toEqual([
      `tasmota/plug-${vp.name}/#`,
      `stat/plug-${vp.name}/+`,
    ]);

    // An operator that may publish, with a password chosen here: never echoed on the page.
    const chosen = `chosen-password-${vp.name}-0123`;
    await page.getByLabel('User name').fill(`ops-${vp.name}`);
    await page.getByLabel('May reach').selectOption('readwrite');
    expect(await page.getByLabel('Site', { exact: true }).isDisabled()).toBe(true);
    await page.getByLabel('Password (optional)').fill(chosen);
    await page.getByRole('button', { name: 'Create' }).click();
    await said(`Created ops-${vp.name} with the password you chose.`);
    expect(await page.content()).not.toContain(chosen);
    const ops = ((await t.admin('GET', '/admin/mqtt/credentials')).body as typeof list).find(
      (c) => c.username === `ops-${vp.name}`,
    );
    expect(ops).toMatchObject({ operator: 'readwrite', topics: null });
    // The chosen password is the one the broker takes.
    const client = await mqtt.connectAsync(t.mqttUrl, {
      username: `ops-${vp.name}`,
      password: chosen,
      reconnectPeriod: 0,
    });
    await client.endAsync();
    expect(await axeViolations(page)).toEqual([]);

    await page.getByRole('button', { name: `Delete credential plug-${vp.name}` }).click();
    await said(`Deleted plug-${vp.name}.`);
    expect(await names()).not.toContain(`plug-${vp.name}`);
  });

  it('clears a retained message by topic and every one a filter matches; a bad filter shows the API error', async () => {
    const user = `retainer-${vp.name}`;
    const password = `retainer-password-${vp.name}`;
    expect(
      (await t.admin('POST', '/admin/mqtt/credentials', { username: user, operator: 'readwrite', password }))
        .status,
    ).toBe(201);
    const client = await mqtt.connectAsync(t.mqttUrl, { username: user, password, reconnectPeriod: 0 });
    const base = `lab-${vp.name}`;
    for (const topic of [`${base}/a`, `${base}/b/1`, `${base}/b/2`])
      await client.publishAsync(topic, `on ${topic}`, { retain: true, qos: 1 });
    await client.endAsync();
    const retained = async () =>
      (
        (await t.admin('GET', `/admin/mqtt/retained?filter=${encodeURIComponent(`${base}/#`)}`))
          .body as Array<{
          topic: string;
        }>
      ).map((m) => m.topic);
    expect(await retained()).toEqual([`${base}/a`, `${base}/b/1`, `${base}/b/2`]);

    await open('MQTT devices');
    const caption = page.locator('caption', { hasText: 'Retained messages' });
    await page.getByLabel('Topic filter', { exact: true }).fill(`${base}/b/+`);
    await page.getByRole('button', { name: 'Show matching' }).click();
    await said(`2 retained messages match ${base}/b/+.`);
    await expect
      .poll(() => caption.innerText())
      .toBe(`Retained messages matching ${base}/b/+ (the first 100 by topic)`);
    await expect
      .poll(() => page.getByRole('button', { name: /^Clear the retained message on / }).count())
      .toBe(2);
    await page.getByLabel('Topic filter', { exact: true }).fill(`${base}/+x`);
    await page.getByRole('button', { name: 'Show matching' }).click();
    await saidBad(`'+' must be a whole level of a filter: ${base}/+x`);
    expect(await caption.innerText()).toBe(`Retained messages matching ${base}/b/+ (the first 100 by topic)`);
    await page.getByRole('button', { name: 'Show all' }).click();
    await said('Showing every retained message.');
    await expect.poll(() => caption.innerText()).toBe('Retained messages (the first 100 by topic)');
    await page.getByRole('button', { name: `Clear the retained message on ${base}/a` }).click();
    await said(`Cleared ${base}/a.`);
    expect(await retained()).toEqual([`${base}/b/1`, `${base}/b/2`]);

    await page.getByLabel('Topic filter', { exact: true }).fill(`${base}/#/b`);
    await page.getByRole('button', { name: 'Clear matching' }).click();
    await saidBad(`'#' must be the whole last level of a filter: ${base}/#/b`);
    expect(await retained()).toEqual([`${base}/b/1`, `${base}/b/2`]);

    await page.getByLabel('Topic filter', { exact: true }).fill(`${base}/b/+`);
    await page.getByRole('button', { name: 'Clear matching' }).click();
    await said(`Cleared 2 retained messages matching ${base}/b/+.`);
    expect(await retained()).toEqual([]);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('renames a translation developer key; a label too long shows the API error and keeps the old one', async () => {
    const key = await translationAdmin('POST', '/developer-keys', { label: `Radio ${vp.name}` });
    await open('Translation keys');
    const row = page.locator(`[data-key="${key.key_id}"]`);
    const labelOf = async () =>
      (await translationAdmin('GET', '/developer-keys')).find(
        (k: { key_id: string }) => k.key_id === key.key_id,
      ).label;

    await row.getByRole('button', { name: `Rename key Radio ${vp.name}` }).click();
    await row.getByLabel(`New label of Radio ${vp.name}`).fill('x'.repeat(1025));
    await row.getByRole('button', { name: `Save the label of Radio ${vp.name}` }).click();
    await saidBad("Value for 'label' not supported.");
    expect(await labelOf()).toBe(`Radio ${vp.name}`);
    expect(await axeViolations(page)).toEqual([]);

    await row.getByLabel(`New label of Radio ${vp.name}`).fill(`Kitchen radio ${vp.name}`);
    await row.getByRole('button', { name: `Save the label of Radio ${vp.name}` }).click();
    await said(`Renamed key Radio ${vp.name} to Kitchen radio ${vp.name}.`);
    await row.getByRole('button', { name: `Rename key Kitchen radio ${vp.name}` }).waitFor();
    expect(await labelOf()).toBe(`Kitchen radio ${vp.name}`);
    expect(await axeViolations(page)).toEqual([]);
  });
});
