/**
 * The Zigbee page of the operator console in a real browser: the stick's status, permit-join with its
 * countdown, and a simulated device joining meanwhile; the network key never reaches the page. Then, at
 * a tablet and a phone viewport: a device removed (the stick sends it the leave request), the network
 * backup downloaded (the API's answer), a file that is no backup refused, and a backup restored onto the
 * stick.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installCodeKey, parseInstallCode } from '../../drivers/zigbee/install-code.ts';
import {
  type SimDeviceName,
  startZnpSimulator,
  type ZnpSimulator,
} from '../../scripts/simulators/znp-coordinator/index.ts';
import { axeViolations } from '../helpers/axe.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { renderAfresh } from '../helpers/console.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';
import { IEEE } from './sim-helpers.ts';

let t: TestHub;
let browser: Browser;
let sim: ZnpSimulator;

beforeAll(async () => {
  sim = await startZnpSimulator({ blank: true });
  t = await startTestHub({
    plugins: ['console', 'lighting', 'zigbee'],
    config: { plugins: { lighting: { createHomeSite: true }, zigbee: { path: sim.path } } },
  });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.stop();
  await sim?.stop();
});

it('opens joining from the console with a countdown, and a device joins meanwhile', async () => {
  const page = await (await browser.newContext()).newPage();
  const bodies: string[] = [];
  page.on('response', async (r) => bodies.push(await r.text().catch(() => '')));
  // Straight to the page: a click while the status page is still loading would race its rendering.
  await page.goto(`${t.adminUrl}/admin/ui/#zigbee`);
  await page.getByLabel('Admin key').fill(t.adminKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Zigbee', exact: true }).waitFor();
  await page.locator('#zigbee-status', { hasText: 'connected: true' }).waitFor();
  await page.getByLabel('Open joining for (seconds)').fill('30');
  await page.getByRole('button', { name: 'Permit join' }).click();
  await page.locator('#zigbee-countdown', { hasText: /Joining is open: (30|29|28) s left/ }).waitFor();
  await page
    .locator('#zigbee-countdown', { hasText: /Joining is open: 2[0-7] s left/ })
    .waitFor({ timeout: 15_000 });
  expect(sim.coordinator.join('plug')).toBe(true);
  await page.getByRole('button', { name: 'Close joining' }).click();
  await page.locator('#zigbee-countdown', { hasText: 'Joining is closed.' }).waitFor();
  const key = sim.coordinator.nv.get(0x62)?.toString('hex') ?? 'missing';
  expect(bodies.join('\n')).not.toContain(key);
}, 60_000);

// biome-ignore lint/suspicious/noExplicitAny: backups and answers are JSON read field by field
type Json = any;

async function until<T>(probe: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

const api = async (method: string, path: string, body?: unknown) =>
  (await t.admin(method, `/admin/zigbee${path}`, body)).body as Json;

/** Waits for the driver to be up again (after a restore it restarts on the restored network). */
const connected = () => until(async () => ((await api('GET', '/status')).connected ? true : undefined));

/** Every write the page sent, as `METHOD path`: a question answered "no" must leave none. */
const writes = new WeakMap<Page, string[]>();
const sent = (page: Page, what: string) => (writes.get(page) ?? []).filter((w) => w.startsWith(what));

/** A signed-in console on the Zigbee page at `viewport`. Dialogs are answered by each test. */
async function zigbeePage(viewport: { width: number; height: number }): Promise<Page> {
  const page = await (await browser.newContext({ viewport })).newPage();
  page.setDefaultTimeout(15_000);
  const mine: string[] = [];
  writes.set(page, mine);
  page.on('request', (r) => {
    if (r.method() !== 'GET' && r.url().includes('/admin/ui/api/'))
      mine.push(`${r.method()} ${new URL(r.url()).pathname}`);
  });
  await page.goto(`${t.adminUrl}/admin/ui/#zigbee`);
  await page.getByLabel('Admin key').fill(t.adminKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('#zigbee-status', { hasText: 'connected: true' }).waitFor();
  return page;
}

/** The Zigbee page rendered afresh in the open console (see renderAfresh), its list of writes emptied. */
async function zigbeeAfresh(page: Page): Promise<Page> {
  await renderAfresh(page, '#zigbee');
  await page.locator('#zigbee-status', { hasText: 'connected: true' }).waitFor();
  (writes.get(page) ?? []).length = 0;
  return page;
}

const say = (page: Page, text: string) => page.locator('#say', { hasText: text }).waitFor();

describe.each([
  ['tablet', { width: 1024, height: 768 }, 'plug', 0x2345],
  ['phone', { width: 390, height: 844 }, 'dimmableBulb', 0x3456],
] as const)('the Zigbee page at a %s viewport', (_name, viewport, device: SimDeviceName, panId) => {
  const ieee = IEEE[device as keyof typeof IEEE];
  // One signed-in page per viewport, its Zigbee page rendered afresh for each test (zigbeeAfresh).
  let shared: Page | undefined;
  const freshZigbeePage = async () => {
    if (shared) return zigbeeAfresh(shared);
    shared = await zigbeePage(viewport);
    return shared;
  };
  afterAll(async () => {
    await shared?.context().close();
  });

  it('lists the devices and removes one: asked first, the leave request reaches the stick', async () => {
    await connected();
    await api('POST', '/permit-join', { seconds: 60 });
    expect(sim.coordinator.join(device)).toBe(true);
    await until(async () =>
      ((await api('GET', '/devices')) as Json[]).some((d) => d.ieee === ieee && d.interviewed)
        ? true
        : undefined,
    );
    await api('POST', '/permit-join', { seconds: 0 });
    const page = await freshZigbeePage();
    const row = page.locator(`tr[data-ieee="${ieee}"]`);
    await row.waitFor();
    const model = ((await api('GET', '/devices')) as Json[]).find((d) => d.ieee === ieee).model;
    expect(await row.innerText()).toContain(model);
    expect(await axeViolations(page)).toEqual([]);
    const remove = row.getByRole('button', { name: `Remove ${model} (${ieee})` });

    // Answering "no" to the question changes nothing.
    page.once('dialog', (d) => void d.dismiss());
    await remove.click();
    expect(((await api('GET', '/devices')) as Json[]).map((d) => d.ieee)).toContain(ieee);
    expect(sim.coordinator.log.some((m) => m.name === 'zdoMgmtLeaveReq')).toBe(false);

    let question = '';
    page.once('dialog', (d) => {
      question = d.message();
      void d.accept();
    });
    await remove.click();
    await say(page, `Removed ${model} (${ieee}): it left the network.`);
    expect(sent(page, 'DELETE')).toEqual([`DELETE /admin/ui/api/zigbee/devices/${ieee}`]);
    expect(question).toMatch(/asks it to leave and forgets it even if it does not answer/);
    const leave = sim.coordinator.log.filter((m) => m.name === 'zdoMgmtLeaveReq');
    expect(leave.map((m) => m.fields.deviceIeee)).toEqual([ieee]);
    sim.coordinator.log.length = 0;
    expect(sim.coordinator.devices.get(device)?.joined).toBe(false);
    expect(((await api('GET', '/devices')) as Json[]).map((d) => d.ieee)).not.toContain(ieee);
    await page.locator(`tr[data-ieee="${ieee}"]`).waitFor({ state: 'detached' });
    expect(await axeViolations(page)).toEqual([]);
  }, 60_000);

  it('downloads the network backup: the file is what the API answers', async () => {
    const page = await freshZigbeePage();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download the Zigbee network backup', exact: true }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('hearth-zigbee-backup.json');
    const file = JSON.parse(await readFile((await download.path()) as string, 'utf8'));
    expect(file).toMatchObject({ format: 'hearth-zigbee-backup', version: 2 });
    expect(file.network.networkKey).toBe(sim.coordinator.nv.get(0x62)?.toString('hex'));
    expect(file).toEqual(await api('GET', '/backup'));
    // The same network in the open format zigbee2mqtt and ZHA read.
    const [open] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download it in the open format (for zigbee2mqtt or ZHA)' }).click(),
    ]);
    expect(open.suggestedFilename()).toBe('coordinator_backup.json');
    const openFile = JSON.parse(await readFile((await open.path()) as string, 'utf8'));
    expect(openFile.metadata.format).toBe('zigpy/open-coordinator-backup');
    expect(openFile.network_key.key).toBe(file.network.networkKey);
    expect(await axeViolations(page)).toEqual([]);
  }, 60_000);

  it("a file that is no backup shows the API's error and changes nothing", async () => {
    const page = await freshZigbeePage();
    const before = await api('GET', '/backup');
    const stickPan = sim.coordinator.panId;
    await page.getByLabel('Zigbee backup (.json)').setInputFiles({
      name: 'notes.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify({ format: 'something-else', network: before.network })),
    });
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Restore the Zigbee network' }).click();
    await page.locator('#say.bad', { hasText: 'Restore failed: not a Hearth Zigbee backup' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    expect(await api('GET', '/backup')).toEqual(before);
    expect(sim.coordinator.panId).toBe(stickPan);
    expect((await api('GET', '/status')).connected).toBe(true);
  }, 60_000);

  it('restores a backup: asked first, then the stick carries the restored network', async () => {
    const page = await freshZigbeePage();
    const backup = await api('GET', '/backup');
    expect(backup.network.panId).not.toBe(panId);
    // The same network under another PAN id: the stick must be set up again for it.
    const { stick: _stick, ...rest } = backup;
    const restored = { ...rest, network: { ...backup.network, panId } };
    await page.getByLabel('Zigbee backup (.json)').setInputFiles({
      name: 'hearth-zigbee-backup.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(restored)),
    });
    // Answering "no" leaves the network alone.
    page.once('dialog', (d) => void d.dismiss());
    await page.getByRole('button', { name: 'Restore the Zigbee network' }).click();
    expect((await api('GET', '/backup')).network.panId).toBe(backup.network.panId);

    let question = '';
    page.once('dialog', (d) => {
      question = d.message();
      void d.accept();
    });
    await page.getByRole('button', { name: 'Restore the Zigbee network' }).click();
    await say(page, `Restored the Zigbee network with ${backup.devices.length} devices.`);
    expect(sent(page, 'POST')).toEqual(['POST /admin/ui/api/zigbee/restore']);
    expect(question).toMatch(/Replace the Zigbee network/);
    await connected();
    expect(sim.coordinator.panId).toBe(panId);
    const stored = JSON.parse(await readFile(join(t.dataDir, 'zigbee.network.json'), 'utf8'));
    expect(JSON.stringify(stored)).toContain(`"panId":${panId}`);
    expect((await api('GET', '/backup')).network).toMatchObject({
      panId,
      extendedPanId: backup.network.extendedPanId,
      networkKey: backup.network.networkKey,
    });
    await page.getByRole('button', { name: 'Refresh status and devices' }).click();
    await page.locator('#zigbee-status', { hasText: `panId: ${panId}` }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
  }, 60_000);
});

it('removes a device that does not answer anyway, and says it should be reset', async () => {
  await connected();
  await api('POST', '/permit-join', { seconds: 60 });
  expect(sim.coordinator.join('colourBulb')).toBe(true);
  const ieee = IEEE.colourBulb;
  await until(async () =>
    ((await api('GET', '/devices')) as Json[]).some((d) => d.ieee === ieee && d.interviewed)
      ? true
      : undefined,
  );
  await api('POST', '/permit-join', { seconds: 0 });
  // The bulb is out of reach: the leave request goes out and no answer comes back.
  sim.coordinator.faults.noRoute.add('colourBulb');
  sim.coordinator.faults.noRouteSticky = true;
  const page = await zigbeePage({ width: 1024, height: 768 });
  page.once('dialog', (d) => void d.accept());
  const model = ((await api('GET', '/devices')) as Json[]).find((d) => d.ieee === ieee).model;
  await page.getByRole('button', { name: `Remove ${model} (${ieee})` }).click();
  await page
    .locator('#say', {
      hasText: `Removed ${model} (${ieee}), but it did not answer the leave request: reset it before pairing it again.`,
    })
    .waitFor({ timeout: 30_000 });
  expect(sim.coordinator.log.some((m) => m.name === 'zdoMgmtLeaveReq' && m.fields.deviceIeee === ieee)).toBe(
    true,
  );
  expect(sim.coordinator.devices.get('colourBulb')?.joined).toBe(true);
  expect(((await api('GET', '/devices')) as Json[]).map((d) => d.ieee)).not.toContain(ieee);
  await page.context().close();
}, 60_000);

it("imports a zigbee2mqtt network from its data directory's files: asked first, then the stick carries it and the devices are named", async () => {
  await connected();
  sim.coordinator.faults.noRoute.clear();
  sim.coordinator.faults.noRouteSticky = false;
  const plug = sim.coordinator.devices.get('plug');
  const backup = {
    metadata: {
      format: 'zigpy/open-coordinator-backup',
      version: 1,
      source: 'zigbee-herdsman@0.50.0',
      internal: {},
    },
    stack_specific: {},
    coordinator_ieee: '00124b0021b7a1b2',
    pan_id: '1a62',
    extended_pan_id: 'dd0123456789abcd',
    nwk_update_id: 0,
    security_level: 5,
    channel: 20,
    channel_mask: [20],
    network_key: { key: '01030507090b0d0f00020406080a0c0d', sequence_number: 0, frame_counter: 5000 },
    devices: [
      {
        nwk_address: (plug?.nwk ?? 0).toString(16).padStart(4, '0'),
        ieee_address: IEEE.plug.slice(2),
        is_child: false,
        link_key: null,
      },
    ],
  };
  const database = `${JSON.stringify({
    id: 2,
    type: 'Router',
    ieeeAddr: IEEE.plug,
    nwkAddr: plug?.nwk,
    manufName: plug?.manufacturer,
    modelId: plug?.model,
    endpoints: Object.fromEntries(
      (plug?.endpoints ?? []).map((e) => [
        e.id,
        {
          epId: e.id,
          devId: e.deviceId,
          inClusterList: e.inClusters,
          outClusterList: e.outClusters,
          clusters: {},
        },
      ]),
    ),
    interviewCompleted: true,
  })}\n`;
  const page = await zigbeePage({ width: 390, height: 844 });
  const file = (name: string, text: string) => ({ name, mimeType: 'text/plain', buffer: Buffer.from(text) });
  await page
    .getByLabel('Coordinator backup (coordinator_backup.json or the ZHA backup)')
    .setInputFiles(file('coordinator_backup.json', JSON.stringify(backup)));
  await page
    .getByLabel('Device database (database.db, optional)')
    .setInputFiles(file('database.db', database));
  await page
    .getByLabel('configuration.yaml (optional)')
    .setInputFiles(
      file('configuration.yaml', `devices:\n  '${IEEE.plug}':\n    friendly_name: Kettle plug\n`),
    );
  let question = '';
  page.once('dialog', (d) => {
    question = d.message();
    void d.accept();
  });
  await page.getByRole('button', { name: 'Import the network' }).click();
  await say(
    page,
    'Imported the network of zigbee-herdsman@0.50.0: 1 devices, 1 lights and sensors (1 named).',
  );
  expect(question).toMatch(/Move that network onto the stick/);
  expect(sent(page, 'POST')).toEqual(['POST /admin/ui/api/zigbee/import']);
  await connected();
  await until(async () => (sim.coordinator.panId === 0x1a62 ? true : undefined));
  expect(((await api('GET', '/devices')) as Json[]).map((d) => d.ieee)).toEqual([IEEE.plug]);
  expect(await axeViolations(page)).toEqual([]);
  await page.context().close();
}, 60_000);

it('pairs a device by its install code: a mistyped code is refused, the right one lets it join', async () => {
  const motion = sim.coordinator.devices.get('motion');
  if (!motion) throw new Error('the simulated network has no motion sensor');
  const code = '83FED3407A939723A5C639B26916D505C3B5';
  motion.installCodeKey = installCodeKey(parseInstallCode(code));
  const page = await zigbeePage({ width: 1024, height: 768 });
  await page.getByLabel('IEEE address').fill(IEEE.motion);
  await page.getByLabel('Install code').fill(`${code.slice(0, -1)}4`);
  await page.getByRole('button', { name: 'Add and open joining' }).click();
  await say(page, 'Install code refused: the install code CRC does not match');
  expect(sim.coordinator.installCodeKeys.has(IEEE.motion)).toBe(false);
  await page.getByLabel('Install code').fill(code);
  await page.getByRole('button', { name: 'Add and open joining' }).click();
  await say(page, `${IEEE.motion} may join with its install code`);
  await page.locator('#zigbee-countdown', { hasText: /Joining is open/ }).waitFor();
  expect(await page.getByLabel('Install code').inputValue()).toBe('');
  expect(sim.coordinator.join('motion')).toBe(true);
  expect(await axeViolations(page)).toEqual([]);
  await page.context().close();
}, 60_000);

it('refuses choosing a stick from the console when plugins.zigbee.path is configured (409), and bad input (400)', async () => {
  const listed = (await t.admin('GET', '/admin/zigbee/sticks')).body as Json;
  expect(listed).toMatchObject({ configured: true, inUse: sim.path });
  expect((await t.admin('PUT', '/admin/zigbee/stick', { path: sim.path })).status).toBe(409);
  const unknown = await t.admin('PUT', '/admin/zigbee/stick', { path: sim.path, kind: 'znp' });
  expect(unknown).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  expect((await t.admin('PUT', '/admin/zigbee/stick', { path: 7 })).status).toBe(400);
  expect((await api('GET', '/status')).connected).toBe(true);
});
