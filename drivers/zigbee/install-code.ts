/**
 * Zigbee install codes (docs/zigbee.md#install-codes): a device-unique secret printed on the device, from
 * which the trust centre and the device both derive the link key the device joins with.
 *
 * - Zigbee 3.0 / BDB: a code is 6, 8, 12 or 16 bytes followed by its CRC-16, the CCITT polynomial
 *   0x1021 reflected (0x8408), initial value 0xFFFF, final XOR 0xFFFF, sent least significant byte first.
 * - The link key is the AES-MMO hash of the whole code, CRC included (Zigbee spec, Annex B.6: the
 *   Matyas–Meyer–Oseas construction over AES-128, with Merkle–Damgård padding).
 */
import { createCipheriv } from 'node:crypto';

export const INSTALL_CODE_LENGTHS = [6, 8, 12, 16] as const;

export class InstallCodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InstallCodeError';
  }
}

/** CRC-16/X-25: the checksum that ends an install code. */
export function installCodeCrc(data: Buffer): number {
  let crc = 0xffff;
  for (const byte of data) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0x8408 : crc >>> 1;
  }
  return (crc ^ 0xffff) & 0xffff;
}

/**
 * Reads an install code as printed (hex, with or without spaces, dashes or colons; a QR payload's
 * `Z:<ieee>$I:<code>` part is not handled here) and checks its length and CRC. Returns the code with its CRC.
 */
export function parseInstallCode(text: string): Buffer {
  const hex = text.replace(/[\s:-]/g, '');
  if (!/^([0-9a-fA-F]{2})+$/.test(hex)) throw new InstallCodeError('an install code is hexadecimal digits');
  const code = Buffer.from(hex, 'hex');
  const body = code.length - 2;
  if (!(INSTALL_CODE_LENGTHS as readonly number[]).includes(body))
    throw new InstallCodeError(
      `an install code is 6, 8, 12 or 16 bytes and a 2-byte CRC (this one has ${code.length} bytes)`,
    );
  const crc = installCodeCrc(code.subarray(0, body));
  if (code.readUInt16LE(body) !== crc)
    throw new InstallCodeError('the install code CRC does not match (a typo?)');
  return code;
}

const BLOCK = 16;

/** The AES-MMO hash (Zigbee spec Annex B.6): h₀ = 0, hⱼ = E(hⱼ₋₁, Mⱼ) ⊕ Mⱼ over the padded message. */
export function aesMmoHash(message: Buffer): Buffer {
  const bits = message.length * 8;
  if (bits >= 0x10000) throw new RangeError('AES-MMO with a 16-bit length field takes fewer than 8192 bytes');
  // Padding: a 1 bit, zeros, then the bit length as 16 bits, to a whole number of blocks.
  const padded = Math.ceil((message.length + 1 + 2) / BLOCK) * BLOCK;
  const m = Buffer.alloc(padded);
  message.copy(m);
  m[message.length] = 0x80;
  m.writeUInt16BE(bits, padded - 2);
  let h = Buffer.alloc(BLOCK);
  for (let at = 0; at < padded; at += BLOCK) {
    const block = m.subarray(at, at + BLOCK);
    const cipher = createCipheriv('aes-128-ecb', h, null);
    cipher.setAutoPadding(false);
    const e = Buffer.concat([cipher.update(block), cipher.final()]);
    for (let i = 0; i < BLOCK; i++) e.writeUInt8(e.readUInt8(i) ^ block.readUInt8(i), i);
    h = e;
  }
  return h;
}

/** The link key a device with this install code joins with (16 bytes). */
export function installCodeKey(codeWithCrc: Buffer): Buffer {
  return aesMmoHash(codeWithCrc);
}
