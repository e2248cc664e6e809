import { execFile } from 'node:child_process';

/**
 * systemd readiness protocol (sd_notify). Node cannot send unix datagrams itself, so the messages go
 * through `systemd-notify --pid=<our pid>`; the unit sets NotifyAccess=all for that reason. Without
 * NOTIFY_SOCKET (not under systemd) every call is a no-op.
 */
export class SdNotify {
  private watchdog: NodeJS.Timeout | undefined;

  constructor(
    private readonly env: NodeJS.ProcessEnv = process.env,
    private readonly command = 'systemd-notify',
  ) {}

  get enabled(): boolean {
    return Boolean(this.env.NOTIFY_SOCKET);
  }

  send(...assignments: string[]): Promise<void> {
    if (!this.enabled) return Promise.resolve();
    return new Promise((resolve) => {
      execFile(this.command, [`--pid=${process.pid}`, ...assignments], { env: this.env, timeout: 2000 }, () =>
        resolve(),
      );
    });
  }

  ready(status: string): Promise<void> {
    return this.send('READY=1', `STATUS=${status}`);
  }

  stopping(): Promise<void> {
    this.stopWatchdog();
    return this.send('STOPPING=1');
  }

  /** Pings at half the interval systemd asked for (WATCHDOG_USEC), as sd_watchdog_enabled(3) advises. */
  startWatchdog(): void {
    const usec = Number(this.env.WATCHDOG_USEC);
    if (!this.enabled || !Number.isFinite(usec) || usec <= 0) return;
    const pidOk = !this.env.WATCHDOG_PID || Number(this.env.WATCHDOG_PID) === process.pid;
    if (!pidOk) return;
    this.watchdog = setInterval(() => void this.send('WATCHDOG=1'), Math.max(500, usec / 2000));
    this.watchdog.unref();
  }

  stopWatchdog(): void {
    clearInterval(this.watchdog);
    this.watchdog = undefined;
  }
}
