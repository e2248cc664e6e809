/**
 * The driver's network and device table in the plugin's store (one owner): every change is committed
 * (temp file, fsync, rename) before the driver goes on, so a restart resumes the same network. The
 * network key lives in the core secrets facility (docs/secrets.md), never in the store's files.
 */
import type { PluginStore, SecretsApi } from '../../core/sdk.ts';
import type { ZigbeeDeviceRecord, ZigbeeGroupRecord, ZigbeeStateStore } from '../../drivers/zigbee/device.ts';
import type { RestoreRecord } from '../../drivers/zigbee/restore-record.ts';
import { isValidNetwork, type NetworkParams } from '../../drivers/zigbee/znp/network.ts';
import { isStickSecurity, type StickSecurity } from '../../drivers/zigbee/znp/nv-backup.ts';

/**
 * The network as stored: everything but the key (older versions kept `networkKey` here in plain text)
 * and a restore's stick security state (link keys: kept in the secrets facility until the stick has it).
 */
export type StoredNetwork = Omit<NetworkParams, 'networkKey' | 'security'> & { networkKey?: string };

export interface NetworkDoc {
  network: StoredNetwork | null;
}
export interface DevicesDoc {
  devices: ZigbeeDeviceRecord[];
}
export interface GroupsDoc {
  groups: ZigbeeGroupRecord[];
}
/** The last restore's outcome (addresses, counts, reasons: nothing secret). */
export interface RestoreDoc {
  restore: RestoreRecord | null;
}

export const NETWORK_KEY_SECRET = 'networkKey';
export const RESTORE_SECRET = 'restoreSecurity';

export interface PluginStateStore extends ZigbeeStateStore {
  replace(n: NetworkParams, d: ZigbeeDeviceRecord[]): Promise<void>;
  /** True when a network is stored but its key cannot be read (secrets key missing or changed). */
  keyMissing(): boolean;
}

const withoutKey = (n: NetworkParams): StoredNetwork => ({
  panId: n.panId,
  extendedPanId: n.extendedPanId,
  channel: n.channel,
  ...(n.frameCounter !== undefined ? { frameCounter: n.frameCounter } : {}),
});

function pendingSecurity(secrets: SecretsApi): StickSecurity | undefined {
  const raw = secrets.get(RESTORE_SECRET);
  if (!raw) return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    return isStickSecurity(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export async function openStateStore(store: PluginStore, secrets: SecretsApi): Promise<PluginStateStore> {
  const net = await store.open<NetworkDoc>('network', { network: null });
  const devs = await store.open<DevicesDoc>('devices', { devices: [] });
  const grps = await store.open<GroupsDoc>('groups', { groups: [] });
  const rest = await store.open<RestoreDoc>('restore', { restore: null });
  // Migration: a key stored in plain text by an older version moves into the secrets facility (durable
  // there first, then removed from the store, so a crash in between loses nothing).
  const plain = net.data.network?.networkKey;
  if (typeof plain === 'string' && /^[0-9a-f]{32}$/.test(plain)) {
    await secrets.set(NETWORK_KEY_SECRET, plain);
    await net.commit((d) => {
      if (d.network) delete d.network.networkKey;
    });
  }
  const network = (): NetworkParams | null => {
    const stored = net.data.network;
    const key = secrets.get(NETWORK_KEY_SECRET);
    if (!stored || !key) return null;
    const n = { ...stored, networkKey: key } as NetworkParams;
    const security = pendingSecurity(secrets);
    if (security) n.security = security;
    return isValidNetwork(n) ? n : null;
  };
  const setNetwork = async (n: NetworkParams): Promise<void> => {
    if (secrets.get(NETWORK_KEY_SECRET) !== n.networkKey) await secrets.set(NETWORK_KEY_SECRET, n.networkKey);
    if (n.security) await secrets.set(RESTORE_SECRET, JSON.stringify(n.security));
    else if (secrets.get(RESTORE_SECRET) !== undefined) await secrets.delete(RESTORE_SECRET);
    await net.commit((d) => {
      d.network = withoutKey(n);
    });
  };
  return {
    network,
    setNetwork,
    keyMissing: () => net.data.network !== null && !secrets.get(NETWORK_KEY_SECRET),
    groups: () => grps.data.groups,
    putGroup: (g) =>
      grps.commit((d) => {
        d.groups = [...d.groups.filter((x) => x.id !== g.id), structuredClone(g)];
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
    restoreRecord: () => rest.data.restore,
    setRestoreRecord: (r) =>
      rest.commit((d) => {
        d.restore = r ? structuredClone(r) : null;
      }),
    async replace(n, list) {
      // Another restore: the last one's outcome no longer describes the stick.
      await rest.commit((d) => {
        d.restore = null;
      });
      await setNetwork(n);
      await devs.commit((d) => {
        d.devices = structuredClone(list);
      });
    },
  };
}
