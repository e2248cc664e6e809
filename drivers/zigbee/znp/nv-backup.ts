/**
 * The stick's own security state, for moving a network to a replacement stick of the same family
 * (docs/zigbee.md#backup-and-restore): the NWK frame counter, the network key's sequence number, the
 * trust-centre link-key seed and table, the APS link-key data and the address manager they refer to.
 * Z-Stack 3.x.0 (SimpleLink CC26x2/CC13x2, SYS_VERSION product 1) keeps the tables as extended NV items;
 * Z-Stack 3.0.x (CC253x, product 2) only has its frame counter read here.
 */
import type { Znp } from './znp.ts';

/** SYS_VERSION `product`: which Z-Stack the stick runs. */
export const ZStackProduct = { Z12: 0, Z3X0: 1, Z30X: 2 } as const;

/** Legacy (OSAL) NV item ids. */
const Osal = {
  NWK_ACTIVE_KEY_INFO: 0x003a,
  APS_LINK_KEY_TABLE: 0x004c,
  LEGACY_NWK_SEC_MATERIAL_TABLE_START: 0x0075,
  LEGACY_NWK_SEC_MATERIAL_TABLE_END: 0x0080,
  TCLK_SEED: 0x0101,
} as const;

/** Extended NV items of Z-Stack 3.x.0: system id 1 (Z-Stack), these item ids, one sub id per entry. */
const EX_SYSTEM_ZSTACK = 1;
const Ex = {
  ADDRMGR: 0x0001,
  TCLK_TABLE: 0x0004,
  APS_KEY_DATA_TABLE: 0x0006,
  NWK_SEC_MATERIAL_TABLE: 0x0007,
} as const;
/** No table has more entries than this on any build; reading stops at the first missing entry. */
const MAX_ENTRIES = 256;

/**
 * Added to the frame counter when restoring: devices drop frames whose counter is not above the last
 * one they saw, and the old stick kept counting after the backup (a link status every 15 s alone is
 * about 6000 frames a day). 100 000 covers a backup weeks old at no cost (the counter is 32 bits).
 */
export const FRAME_COUNTER_MARGIN = 100_000;

export interface StickSecurity {
  /**
   * `3.x.0` or `3.0.x`; `ezsp` for an EmberZNet stick, `open` for an open coordinator backup
   * (zigbee2mqtt, ZHA): the frame counter only.
   */
  zstack: string;
  /** The coordinator's outgoing NWK frame counter when read. */
  frameCounter: number;
  keySequence?: number;
  /** Hex; every entry as the stick stores it (a replacement of the same family reads them back as is). */
  tclkSeed?: string;
  tclkTable?: string[];
  apsKeyData?: string[];
  apsLinkKeyTable?: string;
  addressManager?: string[];
  /**
   * The old coordinator's IEEE address (`0x` and 16 hex digits): a replacement takes it, because devices
   * keep their bindings, IAS CIE address and trust-centre state keyed on it (docs/zigbee.md#the-coordinators-ieee-address).
   */
  coordinatorIeee?: string;
  /** Devices' unique trust-centre link keys with their APS frame counters (an open coordinator backup's). */
  linkKeys?: DeviceLinkKey[];
  /** EmberZNet with hashed link keys: the trust-centre link key devices' keys derive from (hex). */
  hashedTclk?: string;
}

/** One device's unique APS link key shared with the trust centre. */
export interface DeviceLinkKey {
  /** `0x` and 16 hex digits. */
  ieee: string;
  /** 32 hex digits; a secret: never logged. */
  key: string;
  /** The trust centre's outgoing APS frame counter for this key. */
  txCounter: number;
  /** The last APS frame counter received from the device with this key. */
  rxCounter: number;
}

const IEEE_RE = /^0x[0-9a-f]{16}$/;
const u32 = (n: unknown) => Number.isInteger(n) && (n as number) >= 0 && (n as number) <= 0xffffffff;

function isLinkKeys(v: unknown): boolean {
  if (v === undefined) return true;
  return (
    Array.isArray(v) &&
    v.length <= 2000 &&
    v.every((k: DeviceLinkKey) => {
      return (
        typeof k === 'object' &&
        k !== null &&
        typeof k.ieee === 'string' &&
        IEEE_RE.test(k.ieee) &&
        typeof k.key === 'string' &&
        /^[0-9a-f]{32}$/.test(k.key) &&
        u32(k.txCounter) &&
        u32(k.rxCounter)
      );
    })
  );
}

async function osalRead(znp: Znp, id: number): Promise<Buffer | null> {
  const r = await znp.request('sysOsalNvRead', { id, offset: 0 });
  return r.status === 0 ? (r.value as Buffer) : null;
}

async function exTable(znp: Znp, itemId: number): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (let subId = 0; subId < MAX_ENTRIES; subId++) {
    const r = await znp.request('sysNvRead', {
      sysId: EX_SYSTEM_ZSTACK,
      itemId,
      subId,
      offset: 0,
      len: 0xf8,
    });
    if (r.status !== 0) break;
    out.push(r.value as Buffer);
  }
  return out;
}

/** A security material entry: frame counter u32, then the extended PAN id it belongs to (8 bytes). */
function frameCounterOf(entries: Buffer[], extendedPanId: string): number {
  const ext = Buffer.from(extendedPanId, 'hex');
  const generic = Buffer.alloc(8, 0xff);
  let fallback = 0;
  for (const e of entries) {
    if (e.length < 12) continue;
    const pan = e.subarray(4, 12);
    // Stored least significant byte first; accept either order rather than guess a build's layout.
    if (pan.equals(ext) || pan.equals(Buffer.from(ext).reverse())) return e.readUInt32LE(0);
    if (pan.equals(generic)) fallback = e.readUInt32LE(0);
  }
  return fallback;
}

/** The outgoing NWK frame counter alone (read at every start and kept with the network). */
export async function readFrameCounter(
  znp: Znp,
  product: number,
  extendedPanId: string,
): Promise<number | undefined> {
  if (product === ZStackProduct.Z3X0)
    return frameCounterOf(await exTable(znp, Ex.NWK_SEC_MATERIAL_TABLE), extendedPanId);
  if (product === ZStackProduct.Z30X) return (await readSecurity(znp, product, extendedPanId))?.frameCounter;
  return undefined;
}

/** Reads what a replacement stick needs; null for a Z-Stack this does not cover (1.2). */
export async function readSecurity(
  znp: Znp,
  product: number,
  extendedPanId: string,
): Promise<StickSecurity | null> {
  if (product === ZStackProduct.Z30X) {
    const entries: Buffer[] = [];
    for (
      let id = Osal.LEGACY_NWK_SEC_MATERIAL_TABLE_START;
      id <= Osal.LEGACY_NWK_SEC_MATERIAL_TABLE_END;
      id++
    ) {
      const v = await osalRead(znp, id);
      if (v) entries.push(v);
    }
    return { zstack: '3.0.x', frameCounter: frameCounterOf(entries, extendedPanId) };
  }
  if (product !== ZStackProduct.Z3X0) return null;
  const hex = (b: Buffer) => b.toString('hex');
  const key = await osalRead(znp, Osal.NWK_ACTIVE_KEY_INFO);
  const seed = await osalRead(znp, Osal.TCLK_SEED);
  const links = await osalRead(znp, Osal.APS_LINK_KEY_TABLE);
  const sec: StickSecurity = {
    zstack: '3.x.0',
    frameCounter: frameCounterOf(await exTable(znp, Ex.NWK_SEC_MATERIAL_TABLE), extendedPanId),
    tclkTable: (await exTable(znp, Ex.TCLK_TABLE)).map(hex),
    apsKeyData: (await exTable(znp, Ex.APS_KEY_DATA_TABLE)).map(hex),
    addressManager: (await exTable(znp, Ex.ADDRMGR)).map(hex),
  };
  if (key && key.length >= 1) sec.keySequence = key[0] as number;
  if (seed) sec.tclkSeed = hex(seed);
  if (links) sec.apsLinkKeyTable = hex(links);
  return sec;
}

async function exWrite(znp: Znp, itemId: number, subId: number, value: Buffer): Promise<void> {
  const at = { sysId: EX_SYSTEM_ZSTACK, itemId, subId };
  const r = await znp.request('sysNvWrite', { ...at, offset: 0, value });
  if (r.status === 0) return;
  // A replacement fresh from formation may lack the entry: create it, then write.
  await znp.request('sysNvCreate', { ...at, len: value.length });
  await znp.call('sysNvWrite', { ...at, offset: 0, value });
}

async function osalWrite(znp: Znp, id: number, value: Buffer): Promise<void> {
  const r = await znp.request('sysOsalNvWrite', { id, offset: 0, value });
  if (r.status === 0) return;
  await znp.request('sysOsalNvItemInit', { id, len: value.length, value });
  await znp.call('sysOsalNvWrite', { id, offset: 0, value });
}

/**
 * Writes a backup's security state onto a stick that was just formed with the same network. The stick
 * must then be reset for the NV to take effect. Only Z-Stack 3.x.0 onto 3.x.0 (the same family).
 */
export async function writeSecurity(
  znp: Znp,
  sec: StickSecurity,
  extendedPanId: string,
  networkKey: string,
): Promise<void> {
  if (sec.zstack !== '3.x.0') throw new Error(`restoring a Z-Stack ${sec.zstack} backup is not supported`);
  const material = Buffer.alloc(12);
  material.writeUInt32LE(Math.min(0xffffffff, sec.frameCounter + FRAME_COUNTER_MARGIN) >>> 0, 0);
  // The same byte order as the extended PAN id NV item the commissioning wrote.
  Buffer.from(extendedPanId, 'hex').copy(material, 4);
  await exWrite(znp, Ex.NWK_SEC_MATERIAL_TABLE, 0, material);
  if (sec.keySequence !== undefined)
    await osalWrite(
      znp,
      Osal.NWK_ACTIVE_KEY_INFO,
      Buffer.concat([Buffer.of(sec.keySequence), Buffer.from(networkKey, 'hex')]),
    );
  if (sec.tclkSeed) await osalWrite(znp, Osal.TCLK_SEED, Buffer.from(sec.tclkSeed, 'hex'));
  if (sec.apsLinkKeyTable)
    await osalWrite(znp, Osal.APS_LINK_KEY_TABLE, Buffer.from(sec.apsLinkKeyTable, 'hex'));
  const tables: Array<[number, string[] | undefined]> = [
    [Ex.ADDRMGR, sec.addressManager],
    [Ex.TCLK_TABLE, sec.tclkTable],
    [Ex.APS_KEY_DATA_TABLE, sec.apsKeyData],
  ];
  for (const [itemId, entries] of tables)
    for (const [i, e] of (entries ?? []).entries()) await exWrite(znp, itemId, i, Buffer.from(e, 'hex'));
}

/** Checks a backup's `stick` part (from an operator's file) before anything is written. */
export function isStickSecurity(x: unknown): x is StickSecurity {
  const s = x as StickSecurity;
  const hexes = (v: unknown, max: number) =>
    v === undefined ||
    (Array.isArray(v) &&
      v.length <= max &&
      v.every((e) => typeof e === 'string' && /^([0-9a-f]{2}){1,248}$/.test(e)));
  const hex = (v: unknown, re: RegExp) => v === undefined || (typeof v === 'string' && re.test(v));
  return (
    typeof s === 'object' &&
    s !== null &&
    (s.zstack === '3.x.0' || s.zstack === '3.0.x' || s.zstack === 'ezsp' || s.zstack === 'open') &&
    Number.isInteger(s.frameCounter) &&
    s.frameCounter >= 0 &&
    s.frameCounter <= 0xffffffff &&
    (s.keySequence === undefined ||
      (Number.isInteger(s.keySequence) && s.keySequence >= 0 && s.keySequence <= 255)) &&
    hex(s.tclkSeed, /^[0-9a-f]{32}$/) &&
    hex(s.hashedTclk, /^[0-9a-f]{32}$/) &&
    hex(s.apsLinkKeyTable, /^([0-9a-f]{2}){1,248}$/) &&
    hexes(s.tclkTable, MAX_ENTRIES) &&
    hexes(s.apsKeyData, MAX_ENTRIES) &&
    hexes(s.addressManager, MAX_ENTRIES) &&
    (s.coordinatorIeee === undefined ||
      (typeof s.coordinatorIeee === 'string' && IEEE_RE.test(s.coordinatorIeee))) &&
    isLinkKeys(s.linkKeys)
  );
}
