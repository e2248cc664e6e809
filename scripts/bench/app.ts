/**
 * `npm run bench:app`: the household app's first load on a phone viewport (390×844, chromium via
 * playwright-core): bytes transferred (encoded, as on the wire, headers included) and requests, and the time
 * to interactive — from navigation start until the site's lights are drawn from the live connection and
 * their switches take taps. Measured on loopback as is and with the CPU slowed 4× (Chrome DevTools'
 * "mid-tier mobile" setting) to stand in for a phone. A fresh browser context per round (nothing cached,
 * no service worker yet); the median of the rounds is printed. A site with 12 lights in 4 rooms,
 * 4 scenes and a button.
 */
import { launchBrowser } from '../../test/helpers/browser.ts';
import { startLighting } from '../../test/lighting/harness.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

const h = await startLighting();
const lights: string[] = [];
for (let i = 1; i <= 12; i++) {
  const type = i % 3 ? 'dimmable' : 'binary';
  lights.push(
    (await h.call('POST', '/light', { name: `Light ${i}`, type, vendor: 'test', testid: `l${i}` })).body._id,
  );
}
for (let r = 0; r < 4; r++)
  await h.call('POST', '/light/group', { name: `Room ${r + 1}`, lights: lights.slice(r * 3, r * 3 + 3) });
for (let s = 0; s < 4; s++)
  await h.call('POST', '/scene', {
    name: `Scene ${s + 1}`,
    state: lights.map((_id, i) => ({ _id, on: i % 2 === 0, bri: 128 })),
  });
await h.call('POST', '/sensor', { name: 'Wall switch', vendor: 'test', testid: 'b1', type: 'button' });
const url = `${h.t.url}/site/${h.sitekey}`;

const browser = await launchBrowser();
try {
  for (const slowdown of [1, 4]) {
    const bytes: number[] = [];
    const requests: number[] = [];
    const tti: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const context = await browser.newContext({
        viewport: { width: 390, height: 844 },
        deviceScaleFactor: 3,
      });
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
      if (slowdown > 1) await cdp.send('Emulation.setCPUThrottlingRate', { rate: slowdown });
      let total = 0;
      let count = 0;
      cdp.on('Network.loadingFinished', (e) => {
        total += e.encodedDataLength;
        count++;
      });
      await page.goto(url);
      // Interactive: the live connection is up and every light's switch is drawn and enabled.
      await page.waitForFunction(
        (n) =>
          document.querySelector('#live.on') !== null &&
          document.querySelectorAll('[data-light] input[role=switch]:not(:disabled)').length === n,
        lights.length,
      );
      tti.push(await page.evaluate(() => performance.now()));
      await page.waitForLoadState('networkidle');
      bytes.push(total);
      requests.push(count);
      await context.close();
    }
    const label = slowdown === 1 ? 'loopback, CPU as is' : `loopback, CPU slowed ${slowdown}×`;
    console.log(
      `household app first load, phone viewport (${label}): ${median(bytes)} bytes transferred in ` +
        `${median(requests)} requests; time to interactive ${median(tti).toFixed(0)} ms (median of ${ROUNDS})`,
    );
  }
} finally {
  await browser.close();
  await h.t.stop();
}
