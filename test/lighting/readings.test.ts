/**
 * Sensor readings through the site API, the live socket, history and the household app (a real browser):
 * the seed's shape for a sensor never heard from, readings with their last-seen time, a low battery and a
 * silent sensor as warnings.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  defaultReadingsDoc,
  type ReadingsDoc,
  SensorReadingsStore,
} from '../../plugins/lighting/readings/readings.ts';
import type { SensorRecord } from '../../plugins/lighting/types.ts';
import { launchBrowser } from '../helpers/browser.ts';
import { type Json, type LightingHarness, startLighting } from './harness.ts';
import { SiteSocket } from './ws-client.ts';

let h: LightingHarness;
let browser: Browser | null = null;
let climate: Json;

beforeAll(async () => {
  h = await startLighting();
  climate = (
    await h.call('POST', '/sensor', {
      name: 'Bathroom',
      vendor: 'test',
      testid: 'th1',
      type: 'climate',
      checkInSeconds: 3600,
    })
  ).body;
});
afterAll(async () => {
  await browser?.close();
  await h?.t.stop();
});

describe('sensor readings', () => {
  it('a sensor never heard from keeps the seed shape; readings then show with lastSeen, pushed live and kept in history', async () => {
    expect(climate).not.toHaveProperty('readings');
    expect(climate).toMatchObject({ checkInSeconds: 3600, type: 'climate' });
    const ws = await SiteSocket.open(`${h.api}/ws`);
    try {
      h.driver.measure('th1', { temperature: 21.5, humidity: 48, battery: 9, linkquality: 120 });
      const pushed = await ws.next('sensorReadings', (d) => d._id === climate._id);
      expect(pushed.data).toMatchObject({
        name: 'Bathroom',
        readings: { temperature: 21.5, humidity: 48, battery: 9, linkquality: 120 },
      });
      // The same value again is no news: no push, but the sensor was heard from.
      h.driver.measure('th1', { temperature: 21.5 });
      h.driver.measure('th1', { temperature: 22 });
      const next = await ws.next(
        'sensorReadings',
        (d) => d._id === climate._id,
        ws.messages.indexOf(pushed) + 1,
      );
      expect(next.data.readings).toEqual({ temperature: 22 });
    } finally {
      await ws.close();
    }
    const sensor = ((await h.call('GET', '/sensor')).body as Json[]).find((s) => s._id === climate._id);
    expect(sensor.readings).toMatchObject({ temperature: 22, humidity: 48, battery: 9, linkquality: 120 });
    expect(Date.parse(sensor.readings.lastSeen)).toBeGreaterThan(Date.now() - 60_000);
    expect(sensor.warnings).toEqual(['low_battery']);
    // A client that sends the sensor back as it got it (but its actions) is not refused for its readings.
    const put = await h.call('PUT', '/sensor', { ...sensor, actions: undefined, name: 'Bath' });
    expect(put.status).toBe(200);
    expect(put.body.readings.temperature).toBe(22);
    await expect
      .poll(async () => (await h.call('GET', `/history?sensor=${climate._id}&type=reading`)).body as Json[], {
        timeout: 10_000,
      })
      .toEqual([
        expect.objectContaining({ type: 'reading', readings: { temperature: 22, humidity: 48, battery: 9 } }),
      ]);
    expect((await h.call('GET', '/history?type=nope')).status).toBe(400);
    expect(
      (
        await h.call('POST', '/sensor', {
          name: 'x',
          vendor: 'test',
          testid: 'x',
          type: 'b',
          checkInSeconds: 5,
        })
      ).status,
    ).toBe(400);
  });

  it('the household app shows the readings and the warning, and draws them in the history', async () => {
    browser = await launchBrowser();
    const page = await browser.newPage({ viewport: { width: 1024, height: 800 } });
    await page.goto(`${h.t.url}/site/${h.sitekey}`);
    await page.locator('#live', { hasText: 'live' }).waitFor();
    const item = page.locator(`#sensor-readings [data-sensor="${climate._id}"]`);
    await item.waitFor();
    expect(await item.textContent()).toContain('Temperature 22 °C');
    expect(await item.textContent()).toContain('Humidity 48 %');
    expect(await item.locator('.warning').textContent()).toBe('battery low');
    h.driver.measure('th1', { temperature: 23.5, battery: 80 });
    await page
      .locator(`#sensor-readings [data-sensor="${climate._id}"]`, { hasText: 'Temperature 23.5 °C' })
      .waitFor();
    expect(await item.locator('.warning').count()).toBe(0);
    await page.goto(`${h.t.url}/site/${h.sitekey}#history`);
    // One reading so far: a line as short as it is recent, there but not visible.
    await page
      .locator('svg.timeline polyline.reading')
      .first()
      .waitFor({ state: 'attached', timeout: 15_000 });
    expect(await page.locator('svg.timeline').getAttribute('aria-label')).toMatch(/sensors/);
  });

  it('a sensor silent for longer than its check-in period carries a warning', () => {
    let now = 1_000_000;
    let data = defaultReadingsDoc();
    const doc = {
      get data() {
        return data;
      },
      version: 0,
      update(m: (d: ReadingsDoc) => void) {
        m(data);
      },
      async commit(m: (d: ReadingsDoc) => void) {
        m(data);
      },
      async flush() {},
    };
    const store = new SensorReadingsStore(doc, () => now);
    const sensor = { _id: 's1', checkInSeconds: 600 } as SensorRecord;
    store.update('s1', { temperature: 20, battery: 50 });
    expect(store.warnings(sensor)).toEqual([]);
    now += 600_000;
    expect(store.warnings(sensor)).toEqual([]);
    now += 1;
    expect(store.warnings(sensor)).toEqual(['silent']);
    store.seen('s1');
    expect(store.warnings(sensor)).toEqual([]);
    // No check-in period: never silent.
    now += 10 * 86_400_000;
    expect(store.warnings({ _id: 's1' } as SensorRecord)).toEqual([]);
    data = defaultReadingsDoc();
  });
});
