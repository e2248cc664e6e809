/**
 * The NVM3 token a simulated EmberZNet 7.x NCP offers through `getTokenData` / `setTokenData`: the
 * restored EUI64 (docs/zigbee.md#the-coordinators-ieee-address). Rewritable, unlike the custom EUI64
 * manufacturing token; read at boot, where a value that is not all 0xFF replaces the NCP's EUI64.
 */
import { Reader, Writer } from '../../../drivers/zigbee/ezsp/codec.ts';
import { RESTORED_EUI64_CREATOR } from '../../../drivers/zigbee/ezsp/restored-eui64.ts';
import { EmberStatus, writeStatus } from '../../../drivers/zigbee/ezsp/types.ts';

const BLANK = Buffer.alloc(8, 0xff);

export class SimNvm3 {
  /** Least significant byte first; all 0xFF while unset. */
  restoredEui64: Buffer = Buffer.from(BLANK);
  /** How many times the token was written (a second migration writes it again). */
  writes = 0;

  /** The address the stack takes at boot instead of its own, null when unset. */
  get override(): string | null {
    return this.restoredEui64.equals(BLANK)
      ? null
      : `0x${Buffer.from(this.restoredEui64).reverse().toString('hex')}`;
  }

  /**
   * The answer's parameters. An NCP build answers the token's creator code (index 0); any other key is
   * not one of its tokens and fails (SL_STATUS_FAIL, ERR_FATAL before protocol 14).
   */
  answer(name: 'getTokenData' | 'setTokenData', params: Buffer, version: number): Buffer {
    const r = new Reader(params);
    const key = r.u32();
    const index = r.u32();
    const ours = key === RESTORED_EUI64_CREATOR && index === 0;
    if (name === 'getTokenData') {
      if (!ours) return writeStatus(new Writer(), version, EmberStatus.ERR_FATAL).u32(0).done();
      const w = writeStatus(new Writer(), version, EmberStatus.SUCCESS);
      return w.u32(this.restoredEui64.length).bytes(this.restoredEui64).done();
    }
    const data = r.bytes(r.u32());
    if (!ours || data.length !== 8) return writeStatus(new Writer(), version, EmberStatus.ERR_FATAL).done();
    this.restoredEui64 = Buffer.from(data);
    this.writes++;
    return writeStatus(new Writer(), version, EmberStatus.SUCCESS).done();
  }
}
