/** The `zigbee` driver's options (from the plugin's config) with their defaults. */
import type { EzspTimings } from './ezsp/adapter.ts';
import type { StickKind } from './radio.ts';
import type { AdapterTimings } from './znp/adapter.ts';

export interface ZigbeeDriverOptions {
  /** Serial device of the stick; empty: the first known stick under /dev/serial/by-id. */
  path: string;
  /** Channel for a new network (11..26); absent: one of 15, 20, 25. */
  channel?: number;
  /** Which kind of stick: found by probing (`auto`), or forced for odd firmware. */
  stick: StickKind | 'auto';
  /** Z-Stack and EZSP timings (the names they share mean the same). */
  timings: Partial<AdapterTimings & EzspTimings>;
  /** Wait between attempts to reopen a stick that went away. */
  reconnectMs: number;
  /** Liveness ping period (a vanished PTY or USB stick gives no close event until a write). */
  livenessMs: number;
  /** Reports of one device closer together than this become one state report. */
  coalesceMs: number;
  /**
   * Seconds after the last `motion` that Hearth reports `no_motion` for sensors that never send it
   * (zigbee2mqtt's `occupancy_timeout`); absent: the device table's value (90 s for the Aqara sensor).
   */
  occupancyTimeoutSeconds?: number;
}

export function driverOptions(raw: Record<string, unknown>): ZigbeeDriverOptions {
  const n = (v: unknown, d: number) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : d);
  const o: ZigbeeDriverOptions = {
    path: typeof raw.path === 'string' ? raw.path : '',
    stick: raw.stick === 'znp' || raw.stick === 'ezsp' ? raw.stick : 'auto',
    timings:
      typeof raw.timings === 'object' && raw.timings !== null
        ? (raw.timings as Partial<AdapterTimings & EzspTimings>)
        : {},
    reconnectMs: n(raw.reconnectMs, 5000),
    livenessMs: n(raw.livenessMs, 15_000),
    coalesceMs: n(raw.coalesceMs, 30),
  };
  if (typeof raw.occupancyTimeoutSeconds === 'number' && raw.occupancyTimeoutSeconds > 0)
    o.occupancyTimeoutSeconds = raw.occupancyTimeoutSeconds;
  if (typeof raw.channel === 'number' && raw.channel >= 11 && raw.channel <= 26) o.channel = raw.channel;
  return o;
}
