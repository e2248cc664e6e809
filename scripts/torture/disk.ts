/**
 * A full disk: the data dir is a small tmpfs (root only; mounted here, unmounted after). Writes while it is
 * full must fail cleanly (an error status with a JSON body, no crash) and leave nothing behind; what was
 * acknowledged stays; writes work again once space returns; SIGTERM whose last save fails does not exit 0.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { unreadableFiles } from './data-files.ts';
import { type HubProcess, startHub, workDir } from './hub.ts';
import { fail, newResult, type PartResult } from './report.ts';
import { WriteModel } from './writes.ts';

const SIZE = '6m';

/** Fills the file system of `dir` with one file until ENOSPC; returns the file. */
function fill(dir: string): string {
  const file = path.join(dir, 'filler.bin');
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch {
    // ENOSPC: the disk is full; fill the last blocks with smaller writes.
    for (let size = 32 * 1024; size >= 512; size /= 2) {
      try {
        for (;;) writeSync(fd, chunk.subarray(0, size));
      } catch {}
    }
  } finally {
    closeSync(fd);
  }
  return file;
}

export async function run(_: { budgetMs: number }): Promise<PartResult> {
  const r = newResult('full disk (tmpfs)');
  if (process.getuid?.() !== 0) return { ...r, skipped: 'needs root to mount a tmpfs' };
  const dir = workDir('disk');
  const dataDir = path.join(dir, 'data');
  const logFile = path.join(dir, 'hub.log');
  mkdirSync(dataDir);
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${SIZE},mode=0700`, 'tmpfs', dataDir]);
  } catch (err) {
    return { ...r, skipped: `cannot mount a tmpfs: ${(err as Error).message.split('\n')[0]}` };
  }
  const adminKey = 'torture-disk-admin-key-0123456789';
  let hub: HubProcess | undefined;
  try {
    hub = await startHub({ dataDir, logFile, adminKey, config: { log: { level: 'error' } } });
    const model = new WriteModel(hub);
    for (let i = 0; i < 60; i++) await model.one(i % 2);
    const ackedBefore = model.stats.acked;

    // Full: every write either works or fails cleanly, the hub stays up and says why.
    const filler = fill(dataDir);
    const refusedBefore = model.stats.refused;
    let tries = 0;
    for (; tries < 150; tries++) await model.one(tries % 2);
    r.trials += tries;
    const refusedFull = model.stats.refused - refusedBefore;
    if (!hub.alive()) {
      fail(r, 'hub died on a full disk', `exit ${JSON.stringify(await hub.exited)}`);
      return r;
    }
    for (const n of model.notJson) fail(r, 'error without a JSON body', n);
    const ready = await hub.call('main', 'GET', '/ready');
    const status = await hub.admin('GET', '/admin/hub');
    const says = (t: string) => /disk|space|ENOSPC|full/i.test(t);
    if (!says(ready.text))
      fail(r, 'no full-disk notice in /ready', `${ready.status} ${ready.text.slice(0, 160)}`);
    if (!says(status.text)) fail(r, 'no full-disk notice in the admin status', status.text.slice(0, 160));
    const live = await model.verify();
    for (const p of live.problems) fail(r, 'full disk: state after refused writes', p);
    const statuses = [...model.refusals.keys()].map((k) => k.split(' → ')[1]);
    const seen = [...new Set(statuses)].join('/');

    // Space returns: writes work again without a restart.
    rmSync(filler);
    const refusedAtRecovery = model.stats.refused;
    const ackedAtRecovery = model.stats.acked;
    for (let i = 0; i < 60; i++) await model.one(i % 2);
    r.trials += 60;
    if (model.stats.refused > refusedAtRecovery)
      fail(
        r,
        'no recovery when space returns',
        `${model.stats.refused - refusedAtRecovery} of 60 writes still refused`,
      );
    const recovered = await hub.call('main', 'GET', '/ready');
    if (recovered.status !== 200)
      fail(r, 'not ready after space returned', `${recovered.status} ${recovered.text.slice(0, 120)}`);

    // SIGTERM whose last save fails: a light level (coalesced) is changed on a full disk, then SIGTERM.
    const sitekey = model.anySite()?.sitekey;
    let exitNote = 'not tried';
    if (sitekey) {
      const light = await hub.call('main', 'POST', `/api/site/${sitekey}/light`, {
        name: 'term',
        type: 'dimmable',
        vendor: 'virtual',
        virtualid: 'term',
      });
      const filler2 = fill(dataDir);
      await hub.call('main', 'PUT', `/api/site/${sitekey}/light/state`, {
        _id: light.body?._id,
        on: true,
        bri: 201,
      });
      const exit = await hub.stop();
      rmSync(filler2);
      hub = await startHub({ dataDir, logFile, adminKey, config: { log: { level: 'error' } } });
      model.use(hub);
      const after = await hub.call('main', 'GET', `/api/site/${sitekey}/light`);
      const saved =
        (after.body as Array<{ _id: string; bri?: number }>).find((l) => l._id === light.body?._id)?.bri ===
        201;
      exitNote = `SIGTERM on a full disk: exit ${exit.code ?? exit.signal}, level ${saved ? 'saved' : 'not saved'}`;
      r.trials += 1;
      if (exit.code === 0 && !saved) fail(r, 'SIGTERM exit 0 although the last save failed', exitNote);
    }

    // Everything acknowledged is there after kill -9, and every file parses.
    await hub.kill9();
    for (const bad of unreadableFiles(dataDir)) fail(r, 'unreadable file', bad);
    hub = await startHub({ dataDir, logFile, adminKey, config: { log: { level: 'error' } } });
    model.use(hub);
    const v = await model.verify();
    for (const p of v.problems) fail(r, 'after kill -9 and restart', p);
    r.figures.push(
      `${ackedBefore} writes before, ${refusedFull} of ${tries} refused while full (${seen || 'none'}), ${ackedAtRecovery - ackedBefore} acknowledged while full`,
      `after space returned ${model.stats.acked - ackedAtRecovery} of 60 acknowledged; /ready when full: ${ready.status}`,
      exitNote,
      `${v.checked} entities checked after kill -9`,
    );
  } finally {
    if (hub?.alive()) await hub.stop();
    try {
      execFileSync('umount', [dataDir]);
    } catch (err) {
      fail(r, 'umount', (err as Error).message.split('\n')[0] ?? '');
    }
  }
  return r;
}
