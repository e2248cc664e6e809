/** Hot records (issuances, audit events) live in bounded logs of their own (docs/auth.md#hot-records-stay-out-of-the-main-document). */
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { adminClient, siteResourceUri, startAuthHub } from './helpers.ts';

test('issuing tokens leaves the configuration file alone; issuance and audit logs stay within their max', async () => {
  const h = await startAuthHub({
    // 120 refused client authentications from one address: the per-IP limit is raised out of the way.
    config: {
      plugins: {
        auth: { issuances: { max: 100 }, audit: { max: 100 }, rate_limit: { client_fail_burst: 1000 } },
      },
    },
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

test('records older than retention_days leave the logs on disk, not only the answers', async () => {
  const first = await startAuthHub();
  const c = await adminClient(first, { scope: 'lights:read' });
  const site = await siteResourceUri(first);
  const res = await fetch(`${first.auth}/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource: site }),
  });
  expect(res.status).toBe(200);
  await first.stop({ keepData: true });
  const file = (name: string) => path.join(first.dataDir, `auth.${name}.json`);
  const read = (name: string) => JSON.parse(readFileSync(file(name), 'utf8')) as { items: unknown[] };
  const day = 86_400_000;
  // An issuance 31 days old (retention 30) and an audit event 91 days old (retention 90), as older
  // versions of the files would hold them.
  const issuances = read('issuances') as { items: string[] };
  const fields = issuances.items[0]!.split('\t');
  fields[1] = 'old-jti';
  fields[6] = String(Date.now() - 31 * day);
  fields[7] = String(Date.now() - 31 * day + 3_600_000);
  issuances.items.unshift(fields.join('\t'));
  writeFileSync(file('issuances'), JSON.stringify(issuances));
  const audit = read('audit') as { items: Array<Record<string, unknown>> };
  const t = Date.now() - 91 * day;
  audit.items.unshift({ ...audit.items[0]!, id: 'old-event', t, created_at: new Date(t).toISOString() });
  writeFileSync(file('audit'), JSON.stringify(audit));

  const hub = await startAuthHub({ dataDir: first.dataDir });
  try {
    // One more of each, so both logs are written again.
    await adminClient(hub, { scope: 'lights:read' });
    await hub.stop({ keepData: true });
    expect(JSON.stringify(read('issuances'))).not.toContain('old-jti');
    expect(read('issuances').items).toHaveLength(1);
    expect(JSON.stringify(read('audit'))).not.toContain('old-event');
  } finally {
    await hub.stop().catch(() => {});
    rmSync(first.dataDir, { recursive: true, force: true });
  }
});
