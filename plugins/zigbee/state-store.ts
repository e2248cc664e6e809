/**
 * The driver's network and device table in the plugin's store (one owner): every change is committed
 * (temp file, fsync, rename) before the driver goes on, so a restart resumes the same network.
 */
import type { PluginStore } from '../../core/sdk.ts';
import type { ZigbeeDeviceRecord, ZigbeeStateStore } from '../../drivers/zigbee/device.ts';
import { isValidNetwork, type NetworkParams } from '../../drivers/zigbee/znp/network.ts';

export interface NetworkDoc {
  network: NetworkParams | null;
}
export interface DevicesDoc {
  devices: ZigbeeDeviceRecord[];
}

export async function openStateStore(
  store: PluginStore,
): Promise<ZigbeeStateStore & { replace(n: NetworkParams, d: ZigbeeDeviceRecord[]): Promise<void> }> {
  const net = await store.open<NetworkDoc>('network', { network: null });
  const devs = await store.open<DevicesDoc>('devices', { devices: [] });
  return {
    network: () => (isValidNetwork(net.data.network) ? net.data.network : null),
    setNetwork: (n) =>
      net.commit((d) => {
        d.network = { ...n };
      }),
    devices: () => devs.data.devices,
    putDevice: (rec) =>
      devs.commit((d) => {
        const i = d.devices.findIndex((x) => x.ieee === rec.ieee);
        if (i >= 0) d.devices[i] = structuredClone(rec);
        else d.devices.push(structuredClone(rec));
      }),
    removeDevice: (ieee) =>
      devs.commit((d) => {
        d.devices = d.devices.filter((x) => x.ieee !== ieee);
      }),
    async replace(n, list) {
      await net.commit((d) => {
        d.network = { ...n };
      });
      await devs.commit((d) => {
        d.devices = structuredClone(list);
      });
    },
  };
}
