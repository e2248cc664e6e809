/**
 * How Hearth trusts a bridge (docs/hue.md#tls): the bridge's certificate has its bridge id as CN and no
 * subjectAltName, so the host name check is replaced by a CN check. The chain is verified against the roots
 * the operator configured, or — for a bridge those roots cannot verify — against the one certificate pinned
 * at pairing. Verification is never switched off.
 */
import { X509Certificate } from 'node:crypto';
import type { PeerCertificate } from 'node:tls';
import tls from 'node:tls';

export interface BridgeTrust {
  /** 16 hex digits, lower case. */
  bridgeId: string;
  /** PEM roots that sign bridge certificates. */
  roots?: string[];
  /** PEM of the bridge's own certificate, pinned at pairing. */
  pinnedCert?: string;
}

export class BridgeTrustError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BridgeTrustError';
  }
}

export const normaliseBridgeId = (id: string): string => id.trim().toLowerCase();
export const isBridgeId = (id: string): boolean => /^[0-9a-f]{16}$/.test(id);

/** The TLS options of every connection to this bridge. Throws when there is nothing to verify it with. */
export function tlsOptions(trust: BridgeTrust): tls.ConnectionOptions {
  const bridgeId = normaliseBridgeId(trust.bridgeId);
  const pin = trust.pinnedCert ? new X509Certificate(trust.pinnedCert).fingerprint256 : null;
  const ca = trust.pinnedCert ? [trust.pinnedCert] : (trust.roots ?? []);
  if (ca.length === 0) {
    throw new BridgeTrustError(
      `bridge ${bridgeId} cannot be verified: no trusted root and no pinned certificate`,
    );
  }
  return {
    ca,
    rejectUnauthorized: true,
    // A pinned leaf is the trust anchor itself: the chain may end there (OpenSSL's partial chain).
    allowPartialTrustChain: pin !== null,
    checkServerIdentity: (_host: string, cert: PeerCertificate) => {
      const cn = String(cert.subject?.CN ?? '').toLowerCase();
      if (cn !== bridgeId)
        return new BridgeTrustError(`certificate is for ${cn || 'no bridge'}, not bridge ${bridgeId}`);
      if (pin && cert.fingerprint256 !== pin)
        return new BridgeTrustError(`certificate of bridge ${bridgeId} is not the one pinned at pairing`);
      return undefined;
    },
  };
}

export interface ProbedCertificate {
  /** The CN, lower case: a real bridge's id. */
  commonName: string;
  pem: string;
  fingerprint256: string;
  /** Whether the configured roots verify the chain. */
  verifiedByRoots: boolean;
}

/**
 * Reads the certificate a bridge presents, before pairing: the handshake only, no request is sent and
 * nothing is trusted yet. The caller decides (roots verified it, or pin it on first pairing).
 */
export function probeCertificate(
  host: string,
  port: number,
  roots: string[],
  timeoutMs = 5000,
): Promise<ProbedCertificate> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      host,
      port,
      ...(roots.length > 0 ? { ca: roots } : {}),
      // Deliberate and only here: the probe reads the certificate to decide whether to trust it. It
      // sends nothing, and `authorized` below records whether the roots verified it.
      rejectUnauthorized: false,
      checkServerIdentity: () => undefined,
    });
    const timer = setTimeout(
      () => socket.destroy(new Error(`no TLS answer from ${host}:${port}`)),
      timeoutMs,
    );
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      const cert = socket.getPeerCertificate();
      const authorized = socket.authorized && roots.length > 0;
      socket.end();
      if (!cert?.raw) return reject(new BridgeTrustError(`${host}:${port} presented no certificate`));
      const pem = `-----BEGIN CERTIFICATE-----\n${cert.raw.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n?$/, '\n')}-----END CERTIFICATE-----\n`;
      resolve({
        commonName: String(cert.subject?.CN ?? '').toLowerCase(),
        pem,
        fingerprint256: cert.fingerprint256,
        verifiedByRoots: authorized,
      });
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}
