/**
 * The one way tests start a browser: the system's chromium (Debian's package, driven by playwright-core, which
 * downloads no browser of its own), headless, with nothing that reaches the network or keeps state between runs.
 * Debian's `chromium-headless-shell` (the same chromium source and version, built as the headless-only shell)
 * is preferred where installed: it renders the same pages with about a third less CPU than the full browser
 * in headless mode (docs/benchmarks.md, "Browser suites, third round").
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';

/**
 * Where chromium lives: $CHROMIUM if set, else the first `chromium-headless-shell`, then `chromium` or
 * `chromium-browser`, on PATH.
 */
function findChromium(): string | undefined {
  const executable = (file: string) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (process.env.CHROMIUM) return executable(process.env.CHROMIUM) ? process.env.CHROMIUM : undefined;
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin'];
  for (const name of ['chromium-headless-shell', 'chromium', 'chromium-browser'])
    for (const dir of dirs) if (dir && executable(join(dir, name))) return join(dir, name);
  return undefined;
}

let found: string | undefined | null = null;

/** The chromium executable, looked up once per test file; throws a message saying how to get one. */
export function chromiumPath(): string {
  if (found === null) found = findChromium();
  if (!found)
    throw new Error(
      'chromium not found (set $CHROMIUM or put `chromium` on PATH): the browser tests need the Debian ' +
        'package, which `.ci/run` installs (apt-get install chromium-headless-shell chromium)',
    );
  return found;
}

/**
 * Flags this machine needs: no sandbox (containers and CI run as root), no GPU, and none of the background
 * fetches, updates or first-run screens a desktop profile would start.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * Starts headless chromium. playwright's `launch` gives every browser a fresh temporary user-data dir and
 * removes it on `close()`, so no cookie, cache or storage leaks from one test file into another.
 */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
}
