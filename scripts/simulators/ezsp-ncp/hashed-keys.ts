/**
 * The simulated NCP's hashed link keys (docs/zigbee.md#the-hashed-trust-centre-link-key): a trust centre
 * using hashed link keys keeps no key table entry for a device that joined with the well-known key; it
 * derives that device's key from its root (the trust-centre link key) and the device's EUI64 whenever it
 * needs it. The derivation here is the Zigbee keyed hash (HMAC over the AES-MMO hash, Zigbee spec Annex
 * B.1.4) of the EUI64, most significant byte first; what the tests rely on is that one root gives one key
 * per device and another root another key.
 */
import { aesMmoHash } from '../../../drivers/zigbee/install-code.ts';

const xor = (key: Buffer, pad: number) => Buffer.from(key.map((b) => b ^ pad));

/** The key a trust centre with hashed link keys and root `root` uses for the device `ieee` (`0x…`). */
export function hashedLinkKey(root: Buffer, ieee: string): Buffer {
  const eui = Buffer.from(ieee.replace(/^0x/, ''), 'hex');
  const inner = aesMmoHash(Buffer.concat([xor(root, 0x36), eui]));
  return aesMmoHash(Buffer.concat([xor(root, 0x5c), inner]));
}
