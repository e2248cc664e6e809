/**
 * Process metrics under the names Prometheus client libraries use (`process_*`, `nodejs_*`), so the
 * usual dashboards and alerts read them unchanged. Linux values come from /proc; elsewhere they are left
 * out rather than invented.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { MetricsRegistry } from './registry.ts';

const startTimeSeconds = Math.round((Date.now() - performance.now()) / 1000);

function readProc(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** Virtual memory size in bytes (/proc/self/stat field 23). */
function virtualBytes(): number {
  const stat = readProc('/proc/self/stat');
  if (!stat) throw new Error('no /proc');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[20]);
}

function openFds(): number {
  return readdirSync('/proc/self/fd').length;
}

function maxFds(): number {
  const limits = readProc('/proc/self/limits');
  const m = limits?.match(/^Max open files\s+(\d+)/m);
  if (!m) throw new Error('no limit');
  return Number(m[1]);
}

/** Registers the process metrics; the returned function stops the event-loop delay sampler. */
export function registerProcessMetrics(registry: MetricsRegistry): () => void {
  const cpu = () => process.cpuUsage();
  registry.counterOf('process_cpu_user_seconds', 'User CPU time spent in seconds', () => cpu().user / 1e6);
  registry.counterOf(
    'process_cpu_system_seconds',
    'System CPU time spent in seconds',
    () => cpu().system / 1e6,
  );
  registry.counterOf('process_cpu_seconds', 'Total user and system CPU time spent in seconds', () => {
    const c = cpu();
    return (c.user + c.system) / 1e6;
  });
  registry.gauge(
    'process_start_time_seconds',
    'Start time of the process since the Unix epoch in seconds',
    () => startTimeSeconds,
  );
  registry.gauge('process_resident_memory_bytes', 'Resident memory size in bytes', () =>
    process.memoryUsage.rss(),
  );
  registry.gauge('process_virtual_memory_bytes', 'Virtual memory size in bytes', virtualBytes);
  registry.gauge('process_heap_bytes', 'Process heap size in bytes', () => process.memoryUsage().heapTotal);
  registry.gauge('process_open_fds', 'Number of open file descriptors', openFds);
  registry.gauge('process_max_fds', 'Maximum number of open file descriptors', maxFds);
  registry.gauge(
    'nodejs_heap_size_total_bytes',
    'Process heap size from Node.js in bytes',
    () => process.memoryUsage().heapTotal,
  );
  registry.gauge(
    'nodejs_heap_size_used_bytes',
    'Process heap size used from Node.js in bytes',
    () => process.memoryUsage().heapUsed,
  );
  registry.gauge(
    'nodejs_external_memory_bytes',
    'Node.js external memory size in bytes',
    () => process.memoryUsage().external,
  );
  const [major = '0', minor = '0', patch = '0'] = process.versions.node.split('.');
  registry.gauge('nodejs_version_info', 'Node.js version info', () => [
    { labels: { version: process.version, major, minor, patch }, value: 1 },
  ]);

  // Sampled every 20 ms; each scrape reads the window since the last one, then starts a new window.
  const delay = monitorEventLoopDelay({ resolution: 20 });
  delay.enable();
  const window = { p50: 0, p99: 0, max: 0 };
  const read = () => {
    if (delay.count > 0) {
      window.p50 = delay.percentile(50) / 1e9;
      window.p99 = delay.percentile(99) / 1e9;
      window.max = delay.max / 1e9;
    }
    delay.reset();
  };
  registry.gauge(
    'nodejs_eventloop_lag_p50_seconds',
    'The 50th percentile of the event loop delay since the last scrape',
    () => {
      read();
      return window.p50;
    },
  );
  registry.gauge(
    'nodejs_eventloop_lag_p99_seconds',
    'The 99th percentile of the event loop delay since the last scrape',
    () => window.p99,
  );
  registry.gauge(
    'nodejs_eventloop_lag_max_seconds',
    'The largest event loop delay since the last scrape',
    () => window.max,
  );
  return () => delay.disable();
}
