/** The options of one `hue` driver instance, checked once when it is built. */
import type { LimiterOptions } from './limiter.ts';
import { isBridgeId, normaliseBridgeId } from './tls.ts';

export interface HueDriverOptions {
  host: string;
  port: number;
  bridgeId: string;
  /** The application key from pairing: a secret (never logged, never in a status detail). */
  appKey: string;
  /** PEM roots that sign bridges. */
  roots: string[];
  /** PEM of the certificate pinned at pairing, for a bridge the roots cannot verify. */
  pinnedCert?: string;
  /** A silent event stream is dropped and reopened after this long (the bridge sends no keepalives). */
  readTimeoutMs: number;
  backoffStepMs: number;
  backoffMaxMs: number;
  limiter: LimiterOptions;
  /** Finds the bridge again by id (mDNS) once it stops answering at its address. */
  refind?: (bridgeId: string) => Promise<{ host: string; port: number } | null>;
}

export class HueOptionsError extends Error {}

export function parseHueOptions(raw: Record<string, unknown>): HueDriverOptions {
  const str = (k: string): string => {
    const v = raw[k];
    if (typeof v !== 'string' || v.length === 0)
      throw new HueOptionsError(`hue driver: option ${k} is required`);
    return v;
  };
  const num = (k: string, dflt: number, min: number): number => {
    const v = raw[k] ?? dflt;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min) {
      throw new HueOptionsError(`hue driver: option ${k} must be a number ≥ ${min}`);
    }
    return v;
  };
  const bridgeId = normaliseBridgeId(str('bridgeId'));
  if (!isBridgeId(bridgeId)) throw new HueOptionsError('hue driver: bridgeId must be 16 hex digits');
  const roots = raw.roots ?? [];
  if (!Array.isArray(roots) || !roots.every((r) => typeof r === 'string')) {
    throw new HueOptionsError('hue driver: roots must be a list of PEM certificates');
  }
  const pinned = raw.pinnedCert;
  if (pinned !== undefined && typeof pinned !== 'string')
    throw new HueOptionsError('hue driver: pinnedCert must be PEM');
  const refind = raw.refind;
  return {
    host: str('host'),
    port: num('port', 443, 1),
    bridgeId,
    appKey: str('appKey'),
    roots: roots as string[],
    ...(pinned ? { pinnedCert: pinned } : {}),
    readTimeoutMs: num('readTimeoutMs', 90_000, 10),
    backoffStepMs: num('backoffStepMs', 2000, 1),
    backoffMaxMs: num('backoffMaxMs', 600_000, 1),
    limiter: (raw.limiter ?? {}) as LimiterOptions,
    ...(typeof refind === 'function' ? { refind: refind as NonNullable<HueDriverOptions['refind']> } : {}),
  };
}
