/**
 * kill -9 under mixed writes: workers create and change sites, lights, scenes, OAuth clients and developer
 * keys while the hub is SIGKILLed at a random moment; after each restart every data file must parse and
 * every acknowledged write must read back.
 */
import path from 'node:path';
import { unreadableFiles } from './data-files.ts';
import { type HubProcess, startHub, workDir } from './hub.ts';
import { fail, newResult, type PartResult, pct, sleep } from './report.ts';
import { WriteModel } from './writes.ts';

const WORKERS = 6;
const MAX_TRIALS = Number(process.env.TORTURE_CRASH_TRIALS ?? 40);

export async function run({ budgetMs }: { budgetMs: number }): Promise<PartResult> {
  const r = newResult('kill -9 under mixed writes');
  const dir = workDir('crash');
  const dataDir = path.join(dir, 'data');
  const logFile = path.join(dir, 'hub.log');
  const adminKey = 'torture-crash-admin-key-0123456789';
  const deadline = Date.now() + budgetMs * 0.85;
  const starts: number[] = [];
  const boot = async (): Promise<HubProcess> => {
    const t0 = performance.now();
    const h = await startHub({ dataDir, logFile, adminKey });
    starts.push(performance.now() - t0);
    return h;
  };
  let hub = await boot();
  const model = new WriteModel(hub);
  let checked = 0;
  while (Date.now() < deadline && r.trials < MAX_TRIALS) {
    r.trials += 1;
    let stop = false;
    const workers = Array.from({ length: WORKERS }, async (_, w) => {
      while (!stop) await model.one(w);
    });
    await sleep(300 + Math.random() * 1500);
    await hub.kill9();
    stop = true;
    await Promise.all(workers);
    for (const bad of unreadableFiles(dataDir))
      fail(r, 'unreadable file after kill -9', `trial ${r.trials}: ${bad}`);
    try {
      hub = await boot();
    } catch (err) {
      fail(r, 'no restart after kill -9', `trial ${r.trials}: ${(err as Error).message}`);
      break;
    }
    model.use(hub);
    const v = await model.verify();
    checked = v.checked;
    for (const p of v.problems) fail(r, 'acknowledged write lost', `trial ${r.trials}: ${p}`);
  }
  await hub.stop();
  const refusals = [...model.refusals].map(([k, n]) => `${k} ×${n}`).join(', ');
  if (refusals) fail(r, 'write refused under load', refusals);
  r.figures.push(
    `${model.stats.acked} writes acknowledged, ${checked} entities checked after the last kill`,
    `${model.stats.errors} requests cut by the kill`,
    `restart to ready p50 ${pct(starts, 50).toFixed(0)} ms, max ${Math.max(...starts).toFixed(0)} ms`,
  );
  return r;
}
