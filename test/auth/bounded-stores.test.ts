/** Hot records (issuances, audit events) live in bounded logs of their own (issue 5, research §0.5). */
import { readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { adminClient, siteResourceUri, startAuthHub } from './helpers.ts';

test('issuing tokens leaves the configuration file alone; issuance and audit logs stay within their max', async () => {
  const h = await startAuthHub({
    config: { plugins: { auth: { issuances: { max: 100 }, audit: { max: 100 } } } },
  });
  try {
    const site = await siteResourceUri(h);
    const c = await adminClient(h, { scope: 'lights:read' });
    const dataFile = path.join(h.dataDir, 'auth.data.json');
    const before = readFileSync(dataFile, 'utf8');
    const mtime = statSync(dataFile).mtimeMs;
    const token = (secret: string) =>
      fetch(`${h.auth}/oauth/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${c.client_id}:${secret}`).toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource: site }),
      });
    for (let i = 0; i < 120; i++) expect((await token(c.client_secret!)).status).toBe(200);
    // Refused requests are audited (client_credentials.denied): more than the audit log may hold.
    for (let i = 0; i < 120; i++) expect((await token('wrong secret value')).status).toBe(401);
    const list = (await h.admin('GET', `/admin/issuances?client=${c.client_id}&limit=5000`)).body as {
      count: number;
    };
    expect(list.count).toBe(100);
    const audit = (await h.admin('GET', '/admin/audit?limit=1000')).body as unknown[];
    expect(audit.length).toBeLessThanOrEqual(100);
    await h.stop({ keepData: true });
    expect(readFileSync(dataFile, 'utf8')).toBe(before);
    expect(statSync(dataFile).mtimeMs).toBe(mtime);
    const items = (name: string) =>
      (JSON.parse(readFileSync(path.join(h.dataDir, `auth.${name}.json`), 'utf8')) as { items: unknown[] })
        .items.length;
    expect(items('issuances')).toBe(100);
    expect(items('audit')).toBeLessThanOrEqual(100);
  } finally {
    await h.stop().catch(() => {});
    rmSync(h.dataDir, { recursive: true, force: true });
  }
});
