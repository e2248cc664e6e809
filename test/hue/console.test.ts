/**
 * The Hue bridges page of the operator console in a real browser: pairing asks the operator to press the
 * link button, waits for it, and lists the paired bridge; the application key never reaches the page.
 * Then, at a tablet and a phone viewport: a bridge's scenes listed and one recalled on the bridge,
 * pairing a paired bridge again, a bad bridge id answered with the API's error and nothing changed, and
 * "Find bridges" — the hub's discovery setting aims its mDNS question at a responder on loopback — listing
 * a second emulated bridge that, picked, fills the pairing form and is paired, or saying none answered.
 */
import { createSocket } from 'node:dgram';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BridgeMdnsResponder } from '../../scripts/simulators/hue-bridge/mdns.ts';
import { axeViolations } from '../helpers/axe.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { renderAfresh } from '../helpers/console.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';
import { freeUdpPort, ids, SimulatedBridge } from './helpers.ts';

let t: TestHub;
let browser: Browser;
let bridge: SimulatedBridge;
/** A bridge on the "LAN" that is not paired yet: found by discovery, then paired from what it answered. */
let other: SimulatedBridge;
/** The UDP port on 127.0.0.1 the hub's discovery asks (its `discovery` setting). */
let mdnsPort: number;

beforeAll(async () => {
  bridge = await SimulatedBridge.start({ coalesceMs: 50 });
  other = await SimulatedBridge.start({ coalesceMs: 50, bridgeId: '001788fffe0a0b0c' });
  mdnsPort = await freeUdpPort();
  t = await startTestHub({
    plugins: ['console', 'lighting', 'hue'],
    // The pairing window outlasts the axe scan a test runs while it is open, however loaded the machine.
    config: {
      plugins: { hue: { pairingTimeoutMs: 60_000, discovery: { address: '127.0.0.1', port: mdnsPort } } },
    },
  });
  browser = await launchBrowser();
  // Two emulated bridges (each with its own certificate), a hub and chromium: on a 2-core machine under
  // load this took longer than the default hook limit.
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.stop();
  await bridge?.stop();
  await other?.stop();
});

it('pairs a bridge from the console: the link button prompt, then the bridge in the list', async () => {
  const page = await (await browser.newContext()).newPage();
  const bodies: string[] = [];
  page.on('response', async (r) => bodies.push(await r.text().catch(() => '')));
  await page.goto(`${t.adminUrl}/admin/ui/`);
  await page.getByLabel('Admin key').fill(t.adminKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Hue bridges', exact: true }).click();
  await page.getByLabel('Bridge address').fill(bridge.host);
  await page.getByLabel('Port').fill(String(bridge.port));
  await page.getByRole('button', { name: 'Pair' }).click();
  // The prompt counts down to the pairing's deadline.
  await page.locator('#hue-status', { hasText: /Press the link button.*\(\d+ s left\)/ }).waitFor();
  bridge.pressLinkButton();
  await page.locator('#hue-status', { hasText: `Paired bridge ${bridge.bridgeId}` }).waitFor();
  await page.locator(`tr[data-bridge="${bridge.bridgeId}"]`).waitFor();
  const appKey = bridge.keys().at(-1) as string;
  expect(appKey).toBeTruthy();
  expect(bodies.join('\n')).not.toContain(appKey);
  expect(await page.content()).not.toContain(appKey);
}, 60_000);

interface BridgeView {
  bridgeId: string;
  connected: boolean;
  pairedAt: string;
}

const bridges = async () => (await t.admin('GET', '/admin/hue/bridges')).body as BridgeView[];

/** A signed-in console on the Hue page at `viewport`, collecting every answer body it receives. */
async function huePage(viewport: { width: number; height: number }) {
  const page = await (await browser.newContext({ viewport })).newPage();
  page.setDefaultTimeout(15_000);
  const bodies: string[] = [];
  page.on('response', async (r) => bodies.push(await r.text().catch(() => '')));
  page.on('dialog', (d) => void d.accept());
  await page.goto(`${t.adminUrl}/admin/ui/#bridges`);
  await page.getByLabel('Admin key').fill(t.adminKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator(`tr[data-bridge="${bridge.bridgeId}"]`).waitFor();
  return { page, bodies };
}

/** The Hue page rendered afresh in the open console (see renderAfresh), and the answer bodies emptied. */
async function hueAfresh({ page, bodies }: { page: Page; bodies: string[] }) {
  await renderAfresh(page, '#bridges');
  await page.locator(`tr[data-bridge="${bridge.bridgeId}"]`).waitFor();
  bodies.length = 0;
}

async function until<T>(probe: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

const say = (page: Page, text: string | RegExp) => page.locator('#say', { hasText: text }).waitFor();

describe.each([
  ['tablet', { width: 1024, height: 768 }],
  ['phone', { width: 390, height: 844 }],
])('the Hue page at a %s viewport', (_name, viewport) => {
  // One signed-in page per viewport, its Hue page rendered afresh for each test (hueAfresh).
  let view: Awaited<ReturnType<typeof huePage>> | undefined;
  const freshHuePage = async () => {
    if (view) await hueAfresh(view);
    else view = await huePage(viewport);
    return view;
  };
  afterAll(async () => {
    await view?.page.context().close();
  });

  it("lists a bridge's scenes and recalls one on the bridge", async () => {
    await until(async () => ((await bridges())[0]?.connected ? true : undefined));
    // The lights show something else than the scene first, so the recall visibly changes them.
    bridge.change(ids.light(1), { on: { on: false }, dimming: { brightness: 90 } });
    const { page } = await freshHuePage();
    const puts = bridge.stats.scenePuts;
    // The pinned certificate's fingerprint reads whole, though it may wrap at its colons.
    const { fingerprint256 } = (await bridges())[0] as BridgeView & { fingerprint256: string };
    expect(await page.locator(`tr[data-bridge="${bridge.bridgeId}"]`).innerText()).toContain(
      `pinned certificate (SHA-256 ${fingerprint256})`,
    );
    await page.getByRole('button', { name: `Scenes of bridge ${bridge.bridgeId}` }).click();
    const row = page.locator(`tr[data-scene="${ids.scene}"]`);
    await row.waitFor();
    expect(await row.innerText()).toMatch(/Relax\s+\S+/);
    await say(page, `1 scene on bridge ${bridge.bridgeId}.`);
    expect(await axeViolations(page)).toEqual([]);
    const name = (await row.getByRole('button').getAttribute('aria-label')) as string;
    expect(name).toMatch(/^Recall .*Relax$/);
    await row.getByRole('button', { name }).click();
    await say(page, `Recalled ${name.slice('Recall '.length)} on bridge ${bridge.bridgeId}.`);
    expect(bridge.stats.scenePuts).toBe(puts + 1);
    expect(bridge.light(1)).toMatchObject({ on: { on: true }, dimming: { brightness: 40 } });
    expect(await axeViolations(page)).toEqual([]);
  }, 60_000);

  it('pairs a paired bridge again: the link button prompt, then a new key for the same bridge', async () => {
    const { page, bodies } = await freshHuePage();
    const before = (await bridges())[0] as BridgeView;
    const keys = bridge.keys().length;
    bridge.closeLinkButton();
    const again = page.getByRole('button', { name: `Pair bridge ${bridge.bridgeId} again` });
    await again.click();
    await page
      .locator('#hue-status', { hasText: `Press the link button on the Hue bridge ${bridge.bridgeId}` })
      .waitFor();
    // Still waiting for the press: nothing paired yet, the button held until the answer.
    expect(await again.isDisabled()).toBe(true);
    expect(bridge.keys()).toHaveLength(keys);
    expect(await axeViolations(page)).toEqual([]);
    bridge.pressLinkButton();
    await page.locator('#hue-status', { hasText: `Paired bridge ${bridge.bridgeId} again.` }).waitFor();
    expect(bridge.keys()).toHaveLength(keys + 1);
    const after = await bridges();
    expect(after).toHaveLength(1);
    expect(after[0]?.bridgeId).toBe(bridge.bridgeId);
    expect(Date.parse(after[0]?.pairedAt as string)).toBeGreaterThan(Date.parse(before.pairedAt));
    const appKey = bridge.keys().at(-1) as string;
    expect(bodies.join('\n')).not.toContain(appKey);
    expect(await page.content()).not.toContain(appKey);
  }, 60_000);

  it("a bad bridge id shows the API's error and pairs nothing", async () => {
    const { page } = await freshHuePage();
    const before = await bridges();
    const keys = bridge.keys().length;
    await page.getByLabel('Bridge address').fill(bridge.host);
    await page.getByLabel('Port').fill(String(bridge.port));
    await page.getByLabel('Bridge id (optional)').fill('not-a-bridge');
    await page.getByRole('button', { name: 'Pair', exact: true }).click();
    await page.locator('#hue-status', { hasText: 'bridgeId must be 16 hex digits' }).waitFor();
    await page.locator('#say.bad', { hasText: 'bridgeId must be 16 hex digits' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    const answer = await t.admin('POST', '/admin/hue/pairings', {
      host: bridge.host,
      site: 'Home',
      bridgeId: 'not-a-bridge',
    });
    expect(answer).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(await bridges()).toEqual(before);
    expect(bridge.keys()).toHaveLength(keys);
  }, 60_000);

  it('finds a bridge on the LAN, fills the pairing form with it and pairs it', async () => {
    // The bridge answers mDNS where the hub's discovery setting asks (loopback carries no multicast).
    const responder = await BridgeMdnsResponder.start(other, {
      mdns: { port: mdnsPort, interface: '127.0.0.1', multicast: false },
    });
    try {
      other.closeLinkButton();
      const keys = other.keys().length;
      const { page, bodies } = await freshHuePage();
      const pairingBodies: string[] = [];
      page.on('request', (r) => {
        if (r.method() === 'POST' && r.url().endsWith('/hue/pairings'))
          pairingBodies.push(r.postData() ?? '');
      });
      await page.getByRole('button', { name: 'Find bridges', exact: true }).click();
      const found = page.getByRole('button', {
        name: `Hue Bridge - 0A0B0C (${other.bridgeId}) at ${other.host}`,
        exact: true,
      });
      await found.waitFor();
      await say(page, '1 bridge found.');
      // Asked where the setting points (a driver looking for a bridge that moved may ask too).
      expect(responder.answered).toBeGreaterThanOrEqual(1);
      // Only the bridge that answered: the paired one is not on this "LAN".
      expect(await page.locator('#hue-found li').count()).toBe(1);
      expect(await axeViolations(page)).toEqual([]);

      await found.click();
      expect(await page.getByLabel('Bridge address').inputValue()).toBe(other.host);
      expect(await page.getByLabel('Port').inputValue()).toBe(String(other.port));
      expect(await page.getByLabel('Bridge id (optional)').inputValue()).toBe(other.bridgeId);
      await page.getByRole('button', { name: 'Pair', exact: true }).click();
      await page
        .locator('#hue-status', {
          hasText: /Press the link button on the Hue bridge at 127\.0\.0\.1 now.*\(\d+ s left\)/,
        })
        .waitFor();
      // Waiting for the press: nothing paired yet.
      expect(other.keys()).toHaveLength(keys);
      expect(await axeViolations(page)).toEqual([]);
      other.pressLinkButton();
      await page.locator('#hue-status', { hasText: `Paired bridge ${other.bridgeId}.` }).waitFor();
      await page.locator(`tr[data-bridge="${other.bridgeId}"]`).waitFor();
      // The pairing asked for exactly the bridge that answered: its address, port and id.
      expect(pairingBodies.map((b) => JSON.parse(b))).toEqual([
        { host: other.host, port: other.port, site: 'Home', bridgeId: other.bridgeId },
      ]);
      expect((await bridges()).find((b) => b.bridgeId === other.bridgeId)).toBeDefined();
      expect(other.keys()).toHaveLength(keys + 1);
      const appKey = other.keys().at(-1) as string;
      expect(bodies.join('\n')).not.toContain(appKey);
      expect(await page.content()).not.toContain(appKey);
      expect(await axeViolations(page)).toEqual([]);
    } finally {
      await responder.stop();
      // Unpaired again: the next viewport finds it the same way, and the other cases see one bridge.
      await t.admin('DELETE', `/admin/hue/bridges/${other.bridgeId}`);
    }
  }, 60_000);

  it('says so when no bridge answers "Find bridges", and lists none', async () => {
    // Something hears the question where the setting points, but no bridge answers it.
    const listener = createSocket('udp4');
    let questions = 0;
    listener.on('message', () => {
      questions += 1;
    });
    await new Promise<void>((r) => listener.bind(mdnsPort, '127.0.0.1', () => r()));
    try {
      const { page } = await freshHuePage();
      await page.getByRole('button', { name: 'Find bridges', exact: true }).click();
      await say(page, 'No bridge answered; enter its address.');
      expect(questions).toBeGreaterThanOrEqual(1);
      expect(await page.locator('#hue-found li').count()).toBe(0);
      expect(await axeViolations(page)).toEqual([]);
    } finally {
      await new Promise<void>((r) => listener.close(() => r()));
    }
  }, 60_000);
});

it('a bridge that is not connected: its scenes say why, and removing it asks first and forgets it', async () => {
  await bridge.stop();
  await until(async () => ((await bridges())[0]?.connected === false ? true : undefined));
  const { page } = await huePage({ width: 390, height: 844 });
  await page.getByRole('button', { name: `Scenes of bridge ${bridge.bridgeId}` }).click();
  await page
    .locator('#say.bad', { hasText: `Scenes unavailable: no connected bridge ${bridge.bridgeId}` })
    .waitFor();
  expect((await t.admin('GET', `/admin/hue/bridges/${bridge.bridgeId}/scenes`)).status).toBe(404);
  await page.getByRole('button', { name: `Remove bridge ${bridge.bridgeId}` }).click();
  await say(page, `Removed bridge ${bridge.bridgeId}.`);
  await page.locator(`tr[data-bridge="${bridge.bridgeId}"]`).waitFor({ state: 'detached' });
  expect(await bridges()).toEqual([]);
  expect(await axeViolations(page)).toEqual([]);
  await page.context().close();
}, 60_000);
