/**
 * The rewritable "restored EUI64" stack token of EmberZNet firmware that keeps its tokens in NVM3
 * (docs/zigbee.md#the-coordinators-ieee-address): 8 bytes, least significant first, all 0xFF when unset.
 * At boot the stack reads it and, when set, uses it instead of the chip's EUI64 (and instead of the
 * custom EUI64 manufacturing token). Unlike that token it can be written again, so a stick can take a
 * second migration. Reached with the token interface frames `getTokenData` / `setTokenData` (protocol 9
 * and later): key and index as u32, the data with a u32 length; the status is an EmberStatus byte before
 * protocol 14 and an sl_status_t from 14 on.
 */
import { Writer } from './codec.ts';
import { type Ezsp, EzspInvalidCommandError } from './ezsp.ts';
import { EmberStatus, readStatus } from './types.ts';

/** The token's creator code, the key an NCP firmware answers to. */
export const RESTORED_EUI64_CREATOR = 0xe12a;
/** The same token by its NVM3 key (0x10000 | creator), the key a host-stack (RCP) build answers to. */
export const RESTORED_EUI64_NVM3_KEY = 0x1e12a;
/** The token interface frames came with EZSP protocol 9. */
export const TOKEN_INTERFACE_PROTOCOL = 9;
const EUI64_SIZE = 8;

/** Why the token cannot be used, for the restore outcome; null when it can. */
export type RestoredEui64Support = { key: number } | { key: null; why: string };

async function readToken(ezsp: Ezsp, key: number): Promise<Buffer | null> {
  const r = await ezsp.command('getTokenData', new Writer().u32(key).u32(0).done());
  if (readStatus(r, ezsp.version) !== EmberStatus.SUCCESS || r.remaining < 4) return null;
  const size = r.u32();
  return size <= r.remaining ? r.bytes(size) : null;
}

/**
 * Which key reaches the restored-EUI64 token on this stick: asked with `getTokenData`, creator code first
 * (NCP firmware), then the NVM3 key. A stick before protocol 9, or whose firmware does not know the
 * command (invalidCommand), or answers neither key with an 8-byte token, has no such token.
 */
export async function restoredEui64Support(ezsp: Ezsp): Promise<RestoredEui64Support> {
  if (ezsp.version < TOKEN_INTERFACE_PROTOCOL)
    return { key: null, why: `EZSP protocol ${ezsp.version} has no token interface` };
  for (const key of [RESTORED_EUI64_CREATOR, RESTORED_EUI64_NVM3_KEY]) {
    let data: Buffer | null;
    try {
      data = await readToken(ezsp, key);
    } catch (err) {
      if (err instanceof EzspInvalidCommandError)
        return { key: null, why: 'the firmware does not know the token interface commands' };
      throw err;
    }
    if (data?.length === EUI64_SIZE) return { key };
  }
  return { key: null, why: 'the firmware keeps no restored-EUI64 token (tokens not in NVM3)' };
}

/** The address the token holds now, null when unset (all 0xFF). */
export async function readRestoredEui64(ezsp: Ezsp, key: number): Promise<string | null> {
  const data = await readToken(ezsp, key);
  if (!data || data.length !== EUI64_SIZE || data.every((b) => b === 0xff)) return null;
  return `0x${Buffer.from(data).reverse().toString('hex')}`;
}

/** Writes `ieee` into the token; the stack takes it at its next reset. Returns the stick's status. */
export async function writeRestoredEui64(ezsp: Ezsp, key: number, ieee: string): Promise<number> {
  const eui = Buffer.from(ieee.replace(/^0x/, ''), 'hex').reverse();
  const r = await ezsp.command(
    'setTokenData',
    new Writer().u32(key).u32(0).u32(eui.length).bytes(eui).done(),
  );
  return readStatus(r, ezsp.version);
}
