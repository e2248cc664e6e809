/** Builds an MQTT driver against a test broker with a recording sink (the conformance suite's). */
import pino from 'pino';
import type { LightingDriver } from '../../drivers/lighting/index.ts';
import { createMqttDriverFactory } from '../../drivers/mqtt/driver.ts';
import type { MqttDriverDeps } from '../../drivers/mqtt/observer.ts';
import { RecordingSink } from '../drivers/conformance.ts';

export interface DriverRig {
  driver: LightingDriver;
  sink: RecordingSink;
  logs: Array<Record<string, unknown>>;
  stop(): Promise<void>;
}

export async function startDriver(
  url: string,
  options: Record<string, unknown>,
  deps: MqttDriverDeps = {},
): Promise<DriverRig> {
  const logs: Array<Record<string, unknown>> = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  const sink = new RecordingSink();
  const abort = new AbortController();
  const driver = createMqttDriverFactory(deps)({
    id: 'rig',
    options: { broker: { url, reconnectMinMs: 100, reconnectMaxMs: 400 }, ...options },
    sink,
    log,
    signal: abort.signal,
  });
  await driver.start();
  return {
    driver,
    sink,
    logs,
    async stop() {
      abort.abort();
      await driver.stop();
    },
  };
}

/** The next state report for `protocolid` after report index `from`. */
export async function stateAfter(sink: RecordingSink, protocolid: string, from: number) {
  const r = await sink.waitFor((x) => x.kind === 'state' && x.protocolid === protocolid, from);
  return (r as { level: { on: boolean; bri: number } }).level;
}
