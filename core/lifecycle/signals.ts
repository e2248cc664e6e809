import type { Logger } from 'pino';

/** What the exit path stops: the hub, or a CLI command's session. */
export interface Stoppable {
  log?: Pick<Logger, 'info' | 'error' | 'fatal'>;
  stop(): Promise<void>;
}

export interface ExitOptions {
  /** `lifecycle.shutdownGraceMs`: the longest a stop may take. */
  graceMs: number;
  /** Writes one line for the operator (stderr). */
  err: (line: string) => void;
  /** The exit code after a signal and a clean stop: 0 for the hub, 1 for an interrupted command. */
  signalExitCode?: number;
  proc?: ProcessLike;
}

/** The parts of `process` the exit path uses (tests pass a fake). */
export interface ProcessLike extends Pick<NodeJS.EventEmitter, 'on'> {
  exit(code: number): void;
}

/**
 * SIGTERM/SIGINT stop the hub in reverse order and exit 0; if anything hangs past the grace period the
 * process exits 1 anyway, so systemd never has to escalate to SIGKILL. Nothing here waits on stdout or
 * stderr: log and console writes are asynchronous and bounded, and `exit` abandons what a stalled reader
 * has not taken. The data files are flushed by `stop()` before its last log line.
 */
export function exitOnSignals(hub: Stoppable, opts: ExitOptions): void {
  const { graceMs, err, signalExitCode = 0, proc = process } = opts;
  let stopping = false;
  const shutdown = (reason: string, code: number) => {
    if (stopping) {
      // A second signal: the operator insists (Ctrl-C twice).
      if (reason !== 'uncaughtException') proc.exit(1);
      return;
    }
    stopping = true;
    // Armed before anything else can go wrong, and not unref'd: the process must not linger on after it.
    setTimeout(() => {
      err('shutdown grace period exceeded; exiting');
      proc.exit(1);
    }, graceMs);
    hub.log?.info({ reason }, 'stopping');
    hub.stop().then(
      () => proc.exit(code),
      (e: unknown) => {
        err(`stop failed: ${(e as Error).message}`);
        proc.exit(1);
      },
    );
  };
  proc.on('SIGTERM', () => shutdown('SIGTERM', signalExitCode));
  proc.on('SIGINT', () => shutdown('SIGINT', signalExitCode));
  // A plugin's forgotten promise must not take the lights down with it; it is a bug to log, not a crash.
  proc.on('unhandledRejection', (reason: unknown) => {
    hub.log?.error({ err: reason }, 'unhandled promise rejection');
  });
  // The process is in an unknown state, but the data files are worth a bounded attempt to flush.
  proc.on('uncaughtException', (e: Error) => {
    hub.log?.fatal({ err: e }, 'uncaught exception');
    shutdown('uncaughtException', 1);
  });
}

/**
 * Ends a CLI command with `code` once stdout and stderr have handed their output to the reader: a pipe is
 * written asynchronously, and exiting at once would cut `hearth site list | less` short. A reader that is
 * gone (EPIPE) ends the wait; a stalled one is the reader's choice, as for any command in a pipeline, and
 * SIGTERM still ends the process.
 */
export function exitAfterOutput(
  code: number,
  streams: NodeJS.WritableStream[] = [process.stdout, process.stderr],
  proc: Pick<ProcessLike, 'exit'> = process,
): void {
  const pending = streams.filter(
    (s) => (s as { writableLength?: number }).writableLength && !(s as { destroyed?: boolean }).destroyed,
  );
  let left = pending.length;
  if (left === 0) {
    proc.exit(code);
    return;
  }
  for (const s of pending) {
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      if (--left === 0) proc.exit(code);
    };
    s.once('drain', done);
    s.once('error', done);
  }
}

/** EPIPE on stdout or stderr (the reader exited) is not a crash: the output is simply lost. */
export function tolerateBrokenStdio(): void {
  for (const s of [process.stdout, process.stderr]) s.on('error', () => {});
}
