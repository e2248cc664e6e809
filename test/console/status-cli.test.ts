/**
 * `hearth status` (what the install script ends with): the addresses a phone opens, and while nobody has
 * set up the hub, that it waits to be claimed and its setup code. Run as the real CLI against a running hub.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT, buildReady, built } from '../helpers/built.ts';
import { startTestHub } from '../helpers/hub.ts';

// This file's tests start children from the run's build: wait for it here, not inside a test.
beforeAll(buildReady, BUILD_TIMEOUT);

const root = path.resolve(import.meta.dirname, '../..');

/** The real CLI from this run's build (what `npm start` runs); the sources under tsx cost 2.5 s of CPU per child. */
async function hearth(
  args: string[],
  dataDir: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const main = await built('core/cli/main.ts');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [main, ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HEARTH_DATA_DIR: dataDir, HEARTH_LOG_LEVEL: 'error' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('hearth status', { timeout: 120_000 }, () => {
  it('prints where to open the console and the household app, and the setup code until the hub is claimed', async () => {
    const t = await startTestHub({ plugins: ['console', 'lighting'], adminKey: null });
    try {
      const code = /([0-9A-Z]{4}-[0-9A-Z]{4})$/.exec(
        t.printed.find((l) => l.startsWith('Setup code')) ?? '',
      )?.[1];
      // The first start says where to go, next to the setup code.
      expect(t.printed).toContain(`Set up this hub from a browser on this network: ${t.adminUrl}/`);
      const before = await hearth(['status'], t.dataDir);
      expect(before.stderr).toBe('');
      expect(before.code).toBe(0);
      expect(before.stdout).toContain(`  ${t.adminUrl}/`);
      expect(before.stdout).toContain(`  ${t.url}/`);
      expect(before.stdout).toContain('Nobody has set up this hub yet');
      expect(before.stdout).toContain(code);
      const claim = await fetch(`${t.adminUrl}/admin/ui/claim`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ password: 'a good long password' }),
      });
      expect(claim.status).toBe(201);
      const after = await hearth(['status'], t.dataDir);
      expect(after.stdout).toContain('sign in with the owner password');
      expect(after.stdout).not.toContain(code);
    } finally {
      await t.stop();
    }
  });
});
