import type { MetricsRegistry } from '../metrics/registry.ts';
import type { LogOutput } from './output.ts';

/** What an operator needs to see that logging is falling behind: lines lost and bytes waiting. */
export function registerLogMetrics(metrics: MetricsRegistry, output: LogOutput): void {
  metrics.counterOf(
    'hearth_log_lines_dropped',
    'Log lines dropped because the log reader (journald, a pipe) did not keep up',
    () => output.dropped,
  );
  metrics.gauge(
    'hearth_log_pending_bytes',
    'Log bytes written but not yet taken by the log reader',
    () => output.pendingBytes,
  );
}
