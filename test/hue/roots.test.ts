/**
 * The Hue bridge roots Hearth ships: exactly the two published roots (subject, validity, fingerprint),
 * intact (each verifies its own signature), and no stand-in for them: a bridge they did not sign is not
 * verified by them.
 */
import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BUNDLED_ROOT_FINGERPRINTS, bundledRoots } from '../../drivers/hue/roots.ts';
import { probeCertificate } from '../../drivers/hue/tls.ts';
import { SimulatedBridge } from './helpers.ts';

describe('shipped Hue bridge roots', () => {
  it('are the Philips Hue root-bridge and the Signify Hue Root CA 01, unaltered', () => {
    const certs = bundledRoots().map((pem) => new X509Certificate(pem));
    expect(certs.map((c) => [c.subject.replace(/\n/g, ', '), c.fingerprint256])).toEqual([
      ['C=NL, O=Philips Hue, CN=root-bridge', BUNDLED_ROOT_FINGERPRINTS['root-bridge']],
      ['C=NL, O=Signify Hue, CN=Hue Root CA 01', BUNDLED_ROOT_FINGERPRINTS['Hue Root CA 01']],
    ]);
    for (const c of certs) {
      expect(c.ca).toBe(true);
      expect(c.issuer).toBe(c.subject);
      expect(c.verify(c.publicKey)).toBe(true);
    }
    expect(certs.map((c) => new Date(c.validTo).getUTCFullYear())).toEqual([2038, 2050]);
  });

  it('do not verify a bridge certificate signed by another root (it gets pinned instead)', async () => {
    const bridge = await SimulatedBridge.start();
    try {
      const probed = await probeCertificate(bridge.host, bridge.port, bundledRoots());
      expect(probed.verifiedByRoots).toBe(false);
      const withItsRoot = await probeCertificate(bridge.host, bridge.port, [
        ...bundledRoots(),
        bridge.certs.rootPem,
      ]);
      expect(withItsRoot.verifiedByRoots).toBe(true);
    } finally {
      await bridge.stop();
    }
  });
});
