/**
 * The open coordinator backup format (`zigpy/open-coordinator-backup`, version 1) that zigbee2mqtt writes
 * as `coordinator_backup.json` and ZHA/zigpy exports (docs/zigbee.md#moving-from-zigbee2mqtt-or-zha):
 * every byte string hex, most significant byte first (PAN id `1a62`, IEEE `00124b0009d69f77`).
 */

import { zstackLinkKeys } from '../znp/link-keys.ts';
import { isValidNetwork, type NetworkParams } from '../znp/network.ts';
import type { DeviceLinkKey, StickSecurity } from '../znp/nv-backup.ts';

export interface OpenBackupDevice {
  ieee: string;
  /** Null when the backup did not know it. */
  nwk: number | null;
  /** A unique trust-centre link key (hex), when the backup has one. */
  linkKey?: string;
}

export interface OpenBackup {
  network: NetworkParams;
  /** The old coordinator's frame counter, for the restore's rule (start well above it). */
  security: StickSecurity;
  coordinatorIeee: string;
  keySequence: number;
  devices: OpenBackupDevice[];
  source: string;
}

export class BackupFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupFormatError';
  }
}

const hexOf = (v: unknown, bytes: number, what: string): string => {
  if (typeof v !== 'string' || !new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`).test(v))
    throw new BackupFormatError(`${what} must be ${bytes * 2} hex digits`);
  return v.toLowerCase();
};

const obj = (v: unknown, what: string): Record<string, unknown> => {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new BackupFormatError(`${what} must be an object`);
  return v as Record<string, unknown>;
};

/** A missing counter is 0 (a key never used); anything else must be a 32-bit counter. */
function counterOf(v: unknown, what: string): number {
  if (v === undefined || v === null) return 0;
  if (!Number.isInteger(v) || (v as number) < 0 || (v as number) > 0xffffffff)
    throw new BackupFormatError(`${what} must be a 32-bit counter`);
  return v as number;
}

/** Reads and checks an open coordinator backup; throws BackupFormatError with what is wrong. */
export function parseOpenBackup(raw: unknown): OpenBackup {
  const b = obj(raw, 'the backup');
  const meta = obj(b.metadata, 'metadata');
  if (meta.format !== 'zigpy/open-coordinator-backup')
    throw new BackupFormatError('metadata.format must be zigpy/open-coordinator-backup');
  if (meta.version !== 1)
    throw new BackupFormatError('only version 1 of the open coordinator backup is known');
  const key = obj(b.network_key, 'network_key');
  const frameCounter = key.frame_counter;
  if (
    !Number.isInteger(frameCounter) ||
    (frameCounter as number) < 0 ||
    (frameCounter as number) > 0xffffffff
  )
    throw new BackupFormatError('network_key.frame_counter must be a 32-bit counter');
  const network: NetworkParams = {
    panId: Number.parseInt(hexOf(b.pan_id, 2, 'pan_id'), 16),
    extendedPanId: hexOf(b.extended_pan_id, 8, 'extended_pan_id'),
    networkKey: hexOf(key.key, 16, 'network_key.key'),
    channel: Number(b.channel),
    frameCounter: frameCounter as number,
  };
  if (!isValidNetwork(network)) throw new BackupFormatError('pan_id or channel out of range');
  const seq = key.sequence_number;
  if (!Array.isArray(b.devices) || b.devices.length > 2000)
    throw new BackupFormatError('devices must be a list of at most 2000');
  const linkKeys: DeviceLinkKey[] = [];
  const devices = b.devices.map((raw, i): OpenBackupDevice => {
    const d = obj(raw, `devices[${i}]`);
    const out: OpenBackupDevice = {
      ieee: `0x${hexOf(d.ieee_address, 8, `devices[${i}].ieee_address`)}`,
      nwk:
        d.nwk_address === null || d.nwk_address === undefined
          ? null
          : Number.parseInt(hexOf(d.nwk_address, 2, `devices[${i}].nwk_address`), 16),
    };
    if (d.link_key && typeof d.link_key === 'object') {
      const lk = d.link_key as Record<string, unknown>;
      out.linkKey = hexOf(lk.key, 16, `devices[${i}].link_key.key`);
      linkKeys.push({
        ieee: out.ieee,
        key: out.linkKey,
        txCounter: counterOf(lk.tx_counter, `devices[${i}].link_key.tx_counter`),
        rxCounter: counterOf(lk.rx_counter, `devices[${i}].link_key.rx_counter`),
      });
    }
    return out;
  });
  const coordinatorIeee = `0x${hexOf(b.coordinator_ieee, 8, 'coordinator_ieee')}`;
  const security: StickSecurity = { zstack: 'open', frameCounter: frameCounter as number, coordinatorIeee };
  if (linkKeys.length) security.linkKeys = linkKeys;
  // Z-Stack derives most devices' keys from this seed; a Z-Stack replacement that has it stores them compactly.
  const specific = b.stack_specific;
  const zstack =
    specific && typeof specific === 'object' ? (specific as Record<string, unknown>).zstack : undefined;
  const seed =
    zstack && typeof zstack === 'object' ? (zstack as Record<string, unknown>).tclk_seed : undefined;
  if (typeof seed === 'string' && /^[0-9a-fA-F]{32}$/.test(seed)) security.tclkSeed = seed.toLowerCase();
  // EmberZNet with hashed link keys derives every device's key from this root; without it a Silicon Labs
  // replacement derives other keys (docs/zigbee.md#the-hashed-trust-centre-link-key).
  const ezsp =
    specific && typeof specific === 'object' ? (specific as Record<string, unknown>).ezsp : undefined;
  const root = ezsp && typeof ezsp === 'object' ? (ezsp as Record<string, unknown>).hashed_tclk : undefined;
  if (root !== undefined && root !== null)
    security.hashedTclk = hexOf(root, 16, 'stack_specific.ezsp.hashed_tclk');
  return {
    network,
    security,
    coordinatorIeee,
    keySequence: Number.isInteger(seq) ? (seq as number) : 0,
    devices,
    source: typeof meta.source === 'string' ? meta.source.slice(0, 100) : 'unknown',
  };
}

/**
 * The devices' link keys a stick's security state holds, counters as the stick reported them: the key
 * table an EmberZNet stick answered, or the NV tables of a Z-Stack 3.x.0 stick decoded.
 */
export function stickLinkKeys(sec: StickSecurity | null | undefined): DeviceLinkKey[] {
  if (!sec) return [];
  return sec.linkKeys ?? zstackLinkKeys(sec);
}

/** What of the stick's own state zigpy and zigbee2mqtt keep beside the network (`stack_specific`). */
function stackSpecific(sec: StickSecurity | null | undefined): Record<string, unknown> {
  if (sec?.zstack === '3.x.0' && sec.tclkSeed) return { zstack: { tclk_seed: sec.tclkSeed } };
  if (sec?.zstack === 'ezsp' && sec.hashedTclk) return { ezsp: { hashed_tclk: sec.hashedTclk } };
  return {};
}

/**
 * Hearth's network as an open coordinator backup (to move it to zigbee2mqtt, ZHA, or another Hearth).
 * `stick` is the stick's security state read now: each device gets its link key with the counters as
 * read (the importer adds its own margin), null when the stick holds none for it; a key the stick holds
 * for a device Hearth does not know adds that device, its network address unknown.
 */
export function toOpenBackup(a: {
  network: NetworkParams;
  frameCounter: number;
  coordinatorIeee: string;
  devices: Array<{ ieee: string; nwk: number }>;
  version: string;
  stick?: StickSecurity | null | undefined;
}): Record<string, unknown> {
  const h2 = (n: number) => n.toString(16).padStart(4, '0');
  const keys = new Map(stickLinkKeys(a.stick).map((k) => [k.ieee, k]));
  const linkKey = (ieee: string) => {
    const k = keys.get(ieee);
    return k ? { key: k.key, tx_counter: k.txCounter, rx_counter: k.rxCounter } : null;
  };
  const known = new Set(a.devices.map((d) => d.ieee));
  const devices = [
    ...a.devices.map((d) => ({ ieee: d.ieee, nwk: h2(d.nwk) as string | null })),
    ...[...keys.keys()].filter((ieee) => !known.has(ieee)).map((ieee) => ({ ieee, nwk: null })),
  ];
  return {
    metadata: {
      format: 'zigpy/open-coordinator-backup',
      version: 1,
      source: `hearth@${a.version}`,
      internal: { date: new Date().toISOString() },
    },
    stack_specific: stackSpecific(a.stick),
    coordinator_ieee: a.coordinatorIeee.replace(/^0x/, ''),
    pan_id: h2(a.network.panId),
    extended_pan_id: a.network.extendedPanId,
    nwk_update_id: 0,
    security_level: 5,
    channel: a.network.channel,
    channel_mask: [a.network.channel],
    network_key: {
      key: a.network.networkKey,
      sequence_number: a.stick?.keySequence ?? 0,
      frame_counter: a.frameCounter,
    },
    devices: devices.map((d) => ({
      nwk_address: d.nwk,
      ieee_address: d.ieee.replace(/^0x/, ''),
      is_child: false,
      link_key: linkKey(d.ieee),
    })),
  };
}
