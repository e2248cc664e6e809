/**
 * The `virtual` driver: lights that exist only in memory and report back like a well-behaved device.
 * For trying Hearth without hardware (`plugins.lighting.drivers: [{ id: "demo", type: "virtual",
 * site: "Home" }]`) and for demos; any protocol id becomes a device on first use.
 */
import type {
  ConnectionStatus,
  DeviceInfo,
  DriverFactory,
  LightLevel,
} from '../../../drivers/lighting/index.ts';

interface VirtualOptions {
  /** Delay before a device "reports" its new level, in ms (default 0). */
  reportDelayMs?: number;
  devices?: DeviceInfo[];
}

export const createVirtualDriver: DriverFactory = ({ options, sink, signal }) => {
  const opts = options as VirtualOptions;
  const devices = new Map<string, { info: DeviceInfo; level: LightLevel }>();
  for (const d of opts.devices ?? []) devices.set(d.protocolid, { info: d, level: { on: false, bri: 0 } });
  let status: ConnectionStatus = { connected: false, since: new Date().toISOString() };

  const device = (protocolid: string) => {
    let d = devices.get(protocolid);
    if (!d) {
      d = { info: { protocolid, kind: 'dimmable' }, level: { on: false, bri: 0 } };
      devices.set(protocolid, d);
    }
    return d;
  };

  return {
    async start() {
      status = { connected: true, since: new Date().toISOString(), detail: { devices: devices.size } };
    },
    async stop() {
      status = { connected: false, since: new Date().toISOString() };
    },
    async discover() {
      return [...devices.values()].map((d) => d.info);
    },
    async listDevices() {
      return [...devices.values()].map((d) => d.info);
    },
    async setState(protocolid, level) {
      if (!status.connected) throw new Error('virtual driver is stopped');
      const d = device(protocolid);
      d.level = { ...level };
      const report = () => {
        if (!signal.aborted) sink.reportState(protocolid, d.level);
      };
      if (opts.reportDelayMs) setTimeout(report, opts.reportDelayMs).unref();
      else setImmediate(report);
    },
    async readState(protocolid) {
      return devices.get(protocolid)?.level ?? null;
    },
    connection: () => status,
  };
};
