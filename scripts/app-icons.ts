/**
 * `node --import tsx scripts/app-icons.ts`: draws the household app's PNG icons (192 and 512 px, which
 * installers ask for) from `plugins/lighting/web/icon.svg` with the system's chromium. Run after changing
 * the SVG; the PNGs are committed so the hub needs no image library.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { launchBrowser } from '../test/helpers/browser.ts';

const web = path.resolve(import.meta.dirname, '../plugins/lighting/web');
const svg = readFileSync(path.join(web, 'icon.svg'), 'utf8');
const browser = await launchBrowser();
try {
  for (const size of [192, 512]) {
    const page = await browser.newPage({ viewport: { width: size, height: size } });
    await page.setContent(
      `<style>html,body{margin:0;background:transparent}svg{display:block;width:${size}px;height:${size}px}</style>${svg}`,
    );
    await page.screenshot({ path: path.join(web, `icon-${size}.png`), omitBackground: true });
    await page.close();
  }
} finally {
  await browser.close();
}
