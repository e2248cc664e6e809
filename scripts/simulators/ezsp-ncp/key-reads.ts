/**
 * The simulated NCP answering reads of its keys, from what it stores, in the layouts of each protocol
 * generation (docs/zigbee.md#exporting-the-devices-link-keys): the configuration values, the key table
 * (getKeyTableEntry before protocol 13, exportLinkKeyByIndex from 13), getKey / exportKey of the network
 * and trust-centre link keys, and the current security state.
 */
import { type Reader, Writer } from '../../../drivers/zigbee/ezsp/codec.ts';
import type { FrameName } from '../../../drivers/zigbee/ezsp/frame.ts';
import { EmberKeyType, SecManKeyType } from '../../../drivers/zigbee/ezsp/link-keys.ts';
import { ConfigId, EmberStatus, InitialSecurity, writeStatus } from '../../../drivers/zigbee/ezsp/types.ts';
import type { HeldKey } from '../znp-coordinator/devices.ts';

/** What the NCP keeps that these reads show. */
export interface KeyState {
  /** The key table, in the order entries were written (index 0 first), by IEEE address. */
  keyTable: ReadonlyMap<string, HeldKey>;
  /** The trust centre's outgoing APS frame counter (one for every key). */
  apsFrameCounter: number;
  /** Configuration values the host set since the last reset. */
  config: ReadonlyMap<number, number>;
  network: { networkKey: string; frameCounter: number; tcLinkKey: string; securityBitmask: number } | null;
  /** The NCP's own EUI64 (the trust centre's address). */
  eui64: string;
}

/** EmberStatus TABLE_ENTRY_ERASED; sl_status NOT_FOUND. */
const TABLE_ENTRY_ERASED = 0xb6;
const SL_NOT_FOUND = 0x000c;
/** EmberCurrentSecurityBitmask: have a trust-centre link key. */
const HAVE_TRUST_CENTER_LINK_KEY = 0x0010;
/** A key table of 12 entries unless the host configured another size. */
const DEFAULT_KEY_TABLE_SIZE = 12;
const ZERO_EUI = '0x0000000000000000';

interface Entry {
  ieee: string;
  key: Buffer;
  outgoing: number;
  incoming: number;
}

function entryAt(s: KeyState, index: number): Entry | null {
  const e = [...s.keyTable.entries()][index];
  if (!e) return null;
  return { ieee: e[0], key: e[1].key, outgoing: s.apsFrameCounter, incoming: e[1].rxCounter };
}

const keyStruct = (w: Writer, type: number, e: Entry | null) =>
  w
    .u16(e ? 0x0003 : 0)
    .u8(type)
    .bytes(e?.key ?? Buffer.alloc(16))
    .u32(e?.outgoing ?? 0)
    .u32(e?.incoming ?? 0)
    .u8(0)
    .ieee(e?.ieee ?? ZERO_EUI);

const metadata = (w: Writer, e: Entry | null) =>
  w
    .u16(e ? 0x0003 : 0)
    .u32(e?.outgoing ?? 0)
    .u32(e?.incoming ?? 0)
    .u16(0);

const context = (w: Writer, type: number, ieee: string) =>
  w.u8(type).u8(0).u16(0).ieee(ieee).u8(0).u8(0).u32(0);

/** The network key or the trust-centre link key as an entry, null when the NCP has no network. */
function ownKey(s: KeyState, which: 'network' | 'tc'): Entry | null {
  const n = s.network;
  if (!n) return null;
  return which === 'network'
    ? { ieee: ZERO_EUI, key: Buffer.from(n.networkKey, 'hex'), outgoing: n.frameCounter, incoming: 0 }
    : { ieee: s.eui64, key: Buffer.from(n.tcLinkKey, 'hex'), outgoing: s.apsFrameCounter, incoming: 0 };
}

/**
 * The answer's parameters for a key read `name` in protocol `v`, or null when `name` is not one of them
 * or not a command of that protocol (the NCP then answers invalidCommand).
 */
export function answerKeyRead(name: FrameName | undefined, r: Reader, v: number, s: KeyState): Buffer | null {
  const w = new Writer();
  const status = (e: number) => writeStatus(w, v, e);
  switch (name) {
    case 'getConfigurationValue': {
      const id = r.u8();
      const value = s.config.get(id) ?? (id === ConfigId.KEY_TABLE_SIZE ? DEFAULT_KEY_TABLE_SIZE : undefined);
      if (value === undefined) return status(EmberStatus.INVALID_CALL).u16(0).done();
      return status(EmberStatus.SUCCESS).u16(value).done();
    }
    case 'getCurrentSecurityState': {
      const n = s.network;
      if (!n) return status(EmberStatus.NOT_JOINED).u16(0).ieee(ZERO_EUI).done();
      const kept =
        InitialSecurity.TRUST_CENTER_USES_HASHED_LINK_KEY | InitialSecurity.TRUST_CENTER_GLOBAL_LINK_KEY;
      return status(EmberStatus.SUCCESS)
        .u16((n.securityBitmask & kept) | HAVE_TRUST_CENTER_LINK_KEY)
        .ieee(s.eui64)
        .done();
    }
    case 'getKeyTableEntry': {
      if (v >= 13) return null;
      const e = entryAt(s, r.u8());
      w.u8(e ? EmberStatus.SUCCESS : TABLE_ENTRY_ERASED);
      return keyStruct(w, EmberKeyType.TRUST_CENTER_LINK_KEY, e).done();
    }
    case 'getKey': {
      if (v >= 13) return null;
      const type = r.u8();
      const e =
        type === EmberKeyType.CURRENT_NETWORK_KEY
          ? ownKey(s, 'network')
          : type === EmberKeyType.TRUST_CENTER_LINK_KEY
            ? ownKey(s, 'tc')
            : null;
      w.u8(e ? EmberStatus.SUCCESS : EmberStatus.INVALID_CALL);
      return keyStruct(w, type, e).done();
    }
    case 'exportLinkKeyByIndex': {
      if (v < 13) return null;
      const e = entryAt(s, r.u8());
      const sl = e ? 0 : SL_NOT_FOUND;
      // Protocol 13: EUI64, key, metadata, status; 14: status, context (with the EUI64), key, metadata.
      if (v === 13)
        return metadata(w.ieee(e?.ieee ?? ZERO_EUI).bytes(e?.key ?? Buffer.alloc(16)), e)
          .u32(sl)
          .done();
      context(w.u32(sl), SecManKeyType.TC_LINK, e?.ieee ?? ZERO_EUI).bytes(e?.key ?? Buffer.alloc(16));
      return metadata(w, e).done();
    }
    case 'exportKey': {
      if (v < 13) return null;
      const type = r.u8();
      const e =
        type === SecManKeyType.NETWORK
          ? ownKey(s, 'network')
          : type === SecManKeyType.TC_LINK
            ? ownKey(s, 'tc')
            : null;
      const key = e?.key ?? Buffer.alloc(16);
      const sl = e ? 0 : SL_NOT_FOUND;
      if (v === 13) return w.bytes(key).u32(sl).done();
      return context(w.u32(sl).bytes(key), type, ZERO_EUI).done();
    }
    default:
      return null;
  }
}
