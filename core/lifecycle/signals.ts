import type { Hub } from '../hub.ts';

/**
 * SIGTERM/SIGINT stop the hub in reverse order and exit 0; if anything hangs past the grace period the
 * process exits 1 anyway, so systemd never has to escalate to SIGKILL.
 */
export function exitOnSignals(hub: Hub, graceMs: number, err: (line: string) => void): void {
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    hub.log.info({ signal }, 'stopping');
    setTimeout(() => {
      err('shutdown grace period exceeded; exiting');
      process.exit(1);
    }, graceMs).unref();
    hub.stop().then(
      () => process.exit(0),
      (e: unknown) => {
        err(`stop failed: ${(e as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  // A plugin's forgotten promise must not take the lights down with it; it is a bug to log, not a crash.
  process.on('unhandledRejection', (reason) => {
    hub.log.error({ err: reason }, 'unhandled promise rejection');
  });
  process.on('uncaughtException', (e) => {
    hub.log.fatal({ err: e }, 'uncaught exception');
    process.exit(1);
  });
}
