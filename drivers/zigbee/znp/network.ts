/** A Zigbee network's parameters: what a blank stick is commissioned with and what a restart resumes. */
import { randomBytes, randomInt } from 'node:crypto';
import type { StickSecurity } from './nv-backup.ts';

export interface NetworkParams {
  panId: number;
  /** 16 hex digits. */
  extendedPanId: string;
  /** 32 hex digits; a secret: never logged. */
  networkKey: string;
  channel: number;
  /** The stick's outgoing NWK frame counter when last read (not secret); a replacement starts above it. */
  frameCounter?: number;
  /** A restored backup's stick security state, written once onto the replacement stick, never stored. */
  security?: StickSecurity;
}

/**
 * Channels 15, 20 and 25 sit between the Wi-Fi channels 1, 6 and 11 most homes use; 11 and 26 are
 * avoided (26 is weak on many radios).
 */
export const PREFERRED_CHANNELS = [15, 20, 25] as const;

export function randomNetwork(channel?: number): NetworkParams {
  // PAN ids 0x0000 and 0xFFFF are reserved; above 0xFFF7 too (ZigBee r22 §3.6.1.9.2).
  const panId = randomInt(0x0001, 0xfff7);
  return {
    panId,
    extendedPanId: randomBytes(8).toString('hex'),
    networkKey: randomBytes(16).toString('hex'),
    channel: channel ?? PREFERRED_CHANNELS[randomInt(PREFERRED_CHANNELS.length)] ?? 15,
  };
}

export const channelMask = (channel: number): number => (1 << channel) >>> 0;

export function isValidNetwork(n: unknown): n is NetworkParams {
  const x = n as NetworkParams;
  return (
    typeof x === 'object' &&
    x !== null &&
    Number.isInteger(x.panId) &&
    x.panId > 0 &&
    x.panId < 0xfff8 &&
    /^[0-9a-f]{16}$/.test(x.extendedPanId) &&
    /^[0-9a-f]{32}$/.test(x.networkKey) &&
    Number.isInteger(x.channel) &&
    x.channel >= 11 &&
    x.channel <= 26 &&
    (x.frameCounter === undefined ||
      (Number.isInteger(x.frameCounter) && x.frameCounter >= 0 && x.frameCounter <= 0xffffffff))
  );
}
