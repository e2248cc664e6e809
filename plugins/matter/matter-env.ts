/**
 * matter.js' process-wide settings, made once when the plugin starts: its log lines go to the plugin's
 * logger (never the console: matter.js would print the pairing code there), it leaves signals and the
 * exit code to the hub, and it announces itself over mDNS where the config says.
 */
import { Environment, LogDestination, LogFormat, Logger, LogLevel } from '@matter/main';
import type { Logger as Pino } from 'pino';

let configured = false;

export function setUpMatter(log: Pino, opts: { mdnsInterface: string }): Environment {
  const env = Environment.default;
  if (!configured) {
    configured = true;
    env.vars.set('runtime.signals', false);
    env.vars.set('runtime.exitcode', false);
  }
  if (opts.mdnsInterface) env.vars.set('mdns.networkInterface', opts.mdnsInterface);
  Logger.destinations.default = LogDestination({
    name: 'default',
    // matter.js' INFO is chatty (every message exchange); NOTICE and above are what an operator needs.
    level: LogLevel.NOTICE,
    format: LogFormat('plain'),
    write(text, message) {
      const line = { facility: message.facility };
      if (message.level >= LogLevel.ERROR) log.error(line, text);
      else if (message.level >= LogLevel.WARN) log.warn(line, text);
      else log.info(line, text);
    },
  });
  return env;
}
