import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type AuthHub, startAuthHub } from './helpers.ts';

let h: AuthHub;
beforeAll(async () => {
  h = await startAuthHub();
});
afterAll(async () => {
  await h?.stop();
});

/** Where the auth plugin keeps its signing keys (its store directory). */
function keyFile(): string {
  const found = readdirSync(h.dataDir, { recursive: true, encoding: 'utf8' }).find(
    (f) => path.basename(f) === 'signing-keys.json',
  );
  if (!found) throw new Error('no signing-keys.json');
  return path.join(h.dataDir, found);
}

test('concurrent key rotations: four at once, five times, are all 200; the key file holds every new key and no temp file is left', async () => {
  const kids: string[] = [];
  for (let round = 0; round < 5; round++) {
    const answers = await Promise.all([1, 2, 3, 4].map(() => h.admin('POST', '/admin/keys/rotate')));
    for (const a of answers) {
      expect(a.status, JSON.stringify(a.body)).toBe(200);
      kids.push((a.body as { kid: string }).kid);
    }
  }
  const file = keyFile();
  const stored = JSON.parse(readFileSync(file, 'utf8')) as { keys: Array<{ kid: string }> };
  const storedKids = new Set(stored.keys.map((k) => k.kid));
  for (const kid of kids) expect(storedKids.has(kid), kid).toBe(true);
  // The served key set and the file agree on the current key (the last save wrote the latest state).
  const jwks = (await (await fetch(`${h.auth}/.well-known/jwks.json`)).json()) as {
    keys: Array<{ kid: string }>;
  };
  expect(jwks.keys.map((k) => k.kid)).toContain(stored.keys[0]!.kid);
  const dir = readdirSync(path.dirname(file));
  expect(dir.filter((f) => f.includes('.tmp'))).toEqual([]);
  // Written through the store's atomic write: the previous version is kept as .bak.
  expect(dir).toContain('signing-keys.json.bak');
});
