import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCommand } from '../../core/cli/args.ts';
import type { CliIo } from '../../core/plugin/types.ts';
import { authCommands } from '../../plugins/auth/commands.ts';
import { type AuthHub, Browser, login, startAuthHub } from './helpers.ts';

let h: AuthHub;
beforeAll(async () => {
  h = await startAuthHub();
});
afterAll(async () => {
  await h?.stop();
});

/** Runs a command against the real hub's admin API, collecting what it prints. */
async function run(name: string, args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    admin: { request: (m, p, b) => h.admin(m, p, b) },
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  };
  const cmd = authCommands.find((c) => c.name === name)!;
  return { code: await runCommand(cmd, args, io), out, err };
}

describe('hearth auth commands', () => {
  test('user add takes the password from the environment and the user can sign in', async () => {
    expect((await run('auth user add', ['eve@home.test', 'Eve'])).code).toBe(2);
    process.env.HEARTH_PASSWORD = 'eve password 12';
    try {
      const r = await run('auth user add', ['eve@home.test', 'Eve', 'Smith']);
      expect(r.code).toBe(0);
      expect(r.out[0]).toMatch(/^user id: /);
      expect((await run('auth user add', ['eve@home.test', 'Eve'])).code).toBe(1);
    } finally {
      delete process.env.HEARTH_PASSWORD;
    }
    expect((await login(new Browser(h.auth), 'eve@home.test', 'eve password 12')).status).toBe(303);
  });

  test('device add provisions a site-bound client that gets a token', async () => {
    const site = ((await h.admin('GET', '/admin/sites')).body as Array<{ siteid: string }>)[0]!.siteid;
    const r = await run('auth device add', ['Hall', 'switch', '--site', site, '--scope', 'scenes:apply']);
    expect(r.code).toBe(0);
    const id = r.out[0]!.split(/\s+/).pop()!;
    const secret = r.out[1]!.split(/\s+/).pop()!;
    const res = await fetch(`${h.auth}/oauth/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: `urn:hearth:site:${site}` }),
    });
    expect(((await res.json()) as { scope: string }).scope).toBe('scenes:apply');
    expect((await run('auth device add', ['x'])).code).toBe(2);
  });

  test('dcr shows and sets the mode', async () => {
    expect((await run('auth dcr', [])).out).toEqual(['mode: open']);
    expect((await run('auth dcr', ['admin_only'])).out).toEqual(['mode: admin_only']);
    const bad = await run('auth dcr', ['sometimes']);
    // A usage error, found before the hub is asked.
    expect(bad.code).toBe(2);
    expect(bad.err[0]).toMatch(/mode must be one of/);
  });
});
