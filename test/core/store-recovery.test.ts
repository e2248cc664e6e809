import { open, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openRoot, readJson, tempDataDir } from './fixtures/store-helpers.ts';

let dataDir: string;
let cleanup: () => Promise<void>;
let file: string;

beforeEach(async () => {
  ({ dir: dataDir, cleanup } = await tempDataDir());
  file = join(dataDir, 'auth.tokens.json');
});
afterEach(async () => {
  await cleanup();
});

const SECRET = 'sk-live-7f3a9c-do-not-log';

/** Two commits so that the file holds `{ v: 2 }` and `.bak` the previous good `{ v: 1 }`. */
async function writeTwoVersions(): Promise<void> {
  const { root } = await openRoot(dataDir);
  const doc = await root.forOwner('auth').open('tokens', { v: 0, secret: SECRET });
  await doc.commit((d) => Object.assign(d, { v: 1 }));
  await doc.commit((d) => Object.assign(d, { v: 2 }));
  await root.close();
}

/** Overwrites the file in place (same inode, as a torn or bit-rotted write would leave it). */
async function corruptInPlace(content: string): Promise<void> {
  const handle = await open(file, 'r+');
  await handle.truncate(0);
  await handle.write(content, 0);
  await handle.close();
}

const corruptFiles = async (name: string) =>
  (await readdir(dataDir)).filter((f) => f.startsWith(`${name}.corrupt-`));

describe('store recovery', () => {
  it('sets an unparsable file aside as <name>.corrupt-<time>, loads .bak and logs it loudly without content', async () => {
    await writeTwoVersions();
    await corruptInPlace(`{"v": 3, "secret": "${SECRET}", "half`);

    const { root, lines, raw } = await openRoot(dataDir);
    const doc = await root.forOwner('auth').open('tokens', { v: 0, secret: '' });
    expect(doc.data).toEqual({ v: 1, secret: SECRET });

    const aside = await corruptFiles('auth.tokens.json');
    expect(aside).toHaveLength(1);
    expect(aside[0]).toMatch(/^auth\.tokens\.json\.corrupt-\d{8}T\d{6}\.\d{3}Z$/);
    expect(await readFile(join(dataDir, aside[0] ?? ''), 'utf8')).toContain('"half');
    // The recovered copy is put back in place right away.
    expect(await readJson(file)).toEqual({ v: 1, secret: SECRET });

    const errors = lines.filter((l) => l.level === 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      file: 'auth.tokens.json',
      setAside: aside[0],
      recoveredFrom: 'auth.tokens.json.bak',
    });
    expect(raw()).not.toContain(SECRET);
    expect(raw()).not.toContain(dataDir);
    await root.close();
  });

  it('treats an empty file and a non-object JSON value as corrupt too', async () => {
    for (const content of ['', '[1,2,3]', 'null']) {
      await writeTwoVersions();
      await corruptInPlace(content);
      const { root } = await openRoot(dataDir);
      const doc = await root.forOwner('auth').open('tokens', { v: 0, secret: '' });
      expect(doc.data.v, JSON.stringify(content)).toBe(1);
      await root.close();
    }
    expect(await corruptFiles('auth.tokens.json')).toHaveLength(3);
  });

  it('starts from defaults when the .bak is unusable as well, keeping both bad files', async () => {
    await writeTwoVersions();
    await corruptInPlace('garbage');
    await writeFile(`${file}.bak`, `also garbage ${SECRET}`);

    const { root, lines, raw } = await openRoot(dataDir);
    const doc = await root.forOwner('auth').open('tokens', { v: 0, secret: 'default' });
    expect(doc.data).toEqual({ v: 0, secret: 'default' });
    expect(await corruptFiles('auth.tokens.json')).toHaveLength(1);
    expect(await corruptFiles('auth.tokens.json.bak')).toHaveLength(1);
    expect(lines.filter((l) => l.level === 50)).toHaveLength(1);
    expect(raw()).not.toContain(SECRET);

    await doc.commit((d) => Object.assign(d, { v: 9 }));
    expect(await readJson(file)).toEqual({ v: 9, secret: 'default' });
    await root.close();
  });

  it('removes temp files of a dead writer and keeps those of a live process', async () => {
    await writeTwoVersions();
    const deadPid = 2 ** 22 + 17; // above Linux's pid_max limit: no such process
    const livePid = process.ppid;
    await writeFile(`${file}.tmp-${deadPid}-1`, '{"v": 99');
    await writeFile(`${file}.bak.tmp-${deadPid}-2`, '{"v": 98');
    await writeFile(`${file}.tmp-${livePid}-3`, '{"v": 97');

    const { root } = await openRoot(dataDir);
    const doc = await root.forOwner('auth').open('tokens', { v: 0, secret: '' });
    expect(doc.data.v).toBe(2);
    const left = (await readdir(dataDir)).filter((f) => f.includes('.tmp-'));
    expect(left).toEqual([`auth.tokens.json.tmp-${livePid}-3`]);
    await root.close();
  });
});
