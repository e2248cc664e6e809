/** The devices page link: a wrong key gives a browser a page in plain words, an API client JSON. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MqttHub, startMqttHub } from './hub.ts';

let h: MqttHub;
beforeAll(async () => {
  h = await startMqttHub();
});
afterAll(() => h.stop());

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('a wrong site key in the browser shows raw JSON (regression)', () => {
  it('answers the devices page of an unknown key with an HTML page for browsers and JSON otherwise', async () => {
    const page = await fetch(`${h.t.url}/mqtt/site/not-a-key`, { headers: { accept: BROWSER } });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('<h1>This link does not work</h1>');
    const api = await fetch(`${h.t.url}/mqtt/site/not-a-key`);
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({ message: 'unknown site' });
    const good = await fetch(`${h.t.url}/mqtt/site/${h.sitekey}`, { headers: { accept: BROWSER } });
    expect(good.status).toBe(200);
  });

  it('serves no asset named after an Object.prototype member', async () => {
    for (const name of ['constructor', 'toString', '__proto__'])
      expect((await fetch(`${h.t.url}/mqtt-devices/ui/${name}`)).status).toBe(404);
  });
});
