/**
 * Pairing (docs/hue.md#finding-and-pairing): find out how the bridge can be trusted, then ask for an
 * application key with `POST /api` until someone presses the link button or the time runs out.
 */
import { ClipClient } from './client.ts';
import {
  type BridgeTrust,
  BridgeTrustError,
  isBridgeId,
  normaliseBridgeId,
  probeCertificate,
} from './tls.ts';

export interface PairingResult {
  bridgeId: string;
  appKey: string;
  clientKey: string | undefined;
  /** Set when the configured roots could not verify the bridge and its certificate was pinned instead. */
  pinnedCert: string | undefined;
  fingerprint256: string;
}

export class PairingError extends Error {
  readonly code: 'timeout' | 'untrusted' | 'unreachable' | 'refused';
  constructor(code: PairingError['code'], message: string) {
    super(message);
    this.name = 'PairingError';
    this.code = code;
  }
}

export interface PairingOptions {
  host: string;
  port?: number;
  /** The bridge id expected (from mDNS or the operator); the certificate's CN must match it. */
  bridgeId?: string;
  roots?: string[];
  /** Pin the certificate of a bridge the roots cannot verify (default true; say so to the operator). */
  pinUnverified?: boolean;
  /** How long to wait for the link button (default 30 s, the bridge's own window). */
  timeoutMs?: number;
  /** Wait until this time (ms since the epoch) instead: a pairing resumed after a restart keeps its end. */
  deadlineAt?: number;
  pollMs?: number;
  devicetype?: string;
  signal?: AbortSignal;
  /** Called once the bridge is reachable and trusted: time to tell the user to press the button. */
  onWaiting?(info: { bridgeId: string; pinned: boolean; fingerprint256: string }): void;
}

export async function pairBridge(opts: PairingOptions): Promise<PairingResult> {
  const port = opts.port ?? 443;
  const roots = opts.roots ?? [];
  const probed = await probeCertificate(opts.host, port, roots).catch((err: Error) => {
    throw new PairingError('unreachable', `no bridge answers at ${opts.host}:${port}: ${err.message}`);
  });
  const bridgeId = normaliseBridgeId(opts.bridgeId ?? probed.commonName);
  if (!isBridgeId(bridgeId))
    throw new PairingError(
      'untrusted',
      `${opts.host}:${port} is not a Hue bridge (certificate CN ${probed.commonName || 'missing'})`,
    );
  if (probed.commonName !== bridgeId) {
    throw new PairingError(
      'untrusted',
      `certificate is for ${probed.commonName || 'no bridge'}, not bridge ${bridgeId}`,
    );
  }
  const pin = !probed.verifiedByRoots;
  if (pin && opts.pinUnverified === false) {
    throw new PairingError(
      'untrusted',
      `bridge ${bridgeId} is not signed by a trusted root and pinning is off`,
    );
  }
  const trust: BridgeTrust = pin ? { bridgeId, pinnedCert: probed.pem } : { bridgeId, roots };
  let client: ClipClient;
  try {
    client = new ClipClient({ host: opts.host, port, trust, timeoutMs: 5000 });
  } catch (err) {
    if (err instanceof BridgeTrustError) throw new PairingError('untrusted', err.message);
    throw err;
  }
  opts.onWaiting?.({ bridgeId, pinned: pin, fingerprint256: probed.fingerprint256 });
  const deadline = opts.deadlineAt ?? Date.now() + (opts.timeoutMs ?? 30_000);
  const devicetype = (opts.devicetype ?? 'hearth#hub').slice(0, 40);
  try {
    for (;;) {
      if (opts.signal?.aborted) throw new PairingError('timeout', 'pairing cancelled');
      const { status, json } = await client.request('POST', '/api', { devicetype, generateclientkey: true });
      const first = Array.isArray(json) ? (json[0] as Record<string, unknown>) : undefined;
      const success = first?.success as { username?: unknown; clientkey?: unknown } | undefined;
      if (status === 200 && typeof success?.username === 'string') {
        return {
          bridgeId,
          appKey: success.username,
          clientKey: typeof success.clientkey === 'string' ? success.clientkey : undefined,
          pinnedCert: pin ? probed.pem : undefined,
          fingerprint256: probed.fingerprint256,
        };
      }
      const error = first?.error as { type?: unknown; description?: unknown } | undefined;
      // 101: link button not pressed — keep asking until the deadline.
      if (status === 200 && error && error.type !== 101) {
        throw new PairingError(
          'refused',
          `bridge refused pairing: ${String(error.description ?? error.type)}`,
        );
      }
      // The last poll is at the deadline itself: a press in the last second of the wait still pairs.
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new PairingError('timeout', `the link button of bridge ${bridgeId} was not pressed in time`);
      }
      await new Promise<void>((r) => {
        const t = setTimeout(r, Math.min(opts.pollMs ?? 1000, left));
        const stop = () => {
          clearTimeout(t);
          r();
        };
        opts.signal?.addEventListener('abort', stop, { once: true });
      });
    }
  } finally {
    client.close();
  }
}
