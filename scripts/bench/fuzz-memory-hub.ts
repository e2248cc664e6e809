// The hub side of `npm run bench:fuzz-memory`: a hub with every plugin that, on a line `gc` on stdin,
// collects garbage twice and prints its memory figures as one JSON line (started with --expose-gc).
import { createInterface } from 'node:readline';
import { loadAll } from '../../core/cli/boot.ts';
import { Hub } from '../../core/hub.ts';

const loaded = await loadAll({ env: process.env });
const hub = new Hub({
  config: loaded.config,
  plugins: loaded.plugins,
  adminKey: process.env.HEARTH_ADMIN_KEY,
  print: () => {},
});
const info = await hub.start();
const gc = (globalThis as { gc?: () => void }).gc;
process.stdout.write(`${JSON.stringify({ urls: info.urls })}\n`);

createInterface({ input: process.stdin }).on('line', async (line) => {
  if (line === 'gc' || line === 'mem') {
    // Twice, with a turn between: weak references and finalizers get their chance.
    if (line === 'gc') {
      gc?.();
      await new Promise((r) => setImmediate(r));
      gc?.();
    }
    const m = process.memoryUsage();
    process.stdout.write(
      `${JSON.stringify({ rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers })}\n`,
    );
  } else if (line === 'stop') {
    await hub.stop();
    process.exit(0);
  }
});
