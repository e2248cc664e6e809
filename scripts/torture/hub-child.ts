/**
 * The hub as `hearth start` runs it (same boot, same signal handling), in a child process the torture
 * parts control over IPC: it reports its URLs and routes when ready and answers memory probes after a GC.
 */
import { loadAll } from '../../core/cli/boot.ts';
import { Hub } from '../../core/hub.ts';
import { exitOnSignals } from '../../core/lifecycle/signals.ts';

const loaded = await loadAll({ file: process.env.HEARTH_CONFIG });
const hub = new Hub({
  config: loaded.config,
  plugins: loaded.plugins,
  adminKey: process.env.HEARTH_ADMIN_KEY,
});
exitOnSignals(hub, {
  graceMs: loaded.config.lifecycle.shutdownGraceMs,
  err: (l) => process.stderr.write(`${l}\n`),
});
const info = await hub.start();
process.send?.({ type: 'ready', urls: info.urls, mqttPort: info.mqttPort, routes: hub.routes() });

const gc = (globalThis as { gc?: () => void }).gc;
process.on('message', (m: { type?: string }) => {
  if (m?.type !== 'mem') return;
  gc?.();
  gc?.();
  const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
  process.send?.({ type: 'mem', rss, heapUsed, heapTotal, external });
});
// The torture runner went away: stop like on SIGTERM rather than linger.
process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
