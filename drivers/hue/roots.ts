/**
 * The roots that sign Hue bridge certificates, shipped with Hearth (roots/hue-bridge-roots.pem, facts in
 * docs/hue.md#tls): Philips Hue "root-bridge" and its successor Signify Hue "Hue Root CA 01". A bridge
 * they verify, and whose certificate names its bridge id, needs no pin.
 */
import { readFileSync } from 'node:fs';

export const BUNDLED_ROOTS_FILE = new URL('./roots/hue-bridge-roots.pem', import.meta.url);

/** SHA-256 fingerprints of the shipped roots, as node:crypto prints them (checked by a test). */
export const BUNDLED_ROOT_FINGERPRINTS = {
  'root-bridge':
    'F0:BD:8E:65:09:E8:2F:77:4D:63:BC:00:9D:53:88:C9:69:FE:3D:CF:7D:6D:54:1D:63:51:B7:2B:89:8D:8A:CF',
  'Hue Root CA 01':
    'D8:B8:94:48:B2:AF:8E:16:76:18:5A:C0:72:19:EE:9D:CB:C8:F0:1C:12:2A:02:6A:2A:4B:7B:5C:FE:03:28:B8',
} as const;

/** The shipped roots, one PEM string each. */
export function bundledRoots(): string[] {
  const text = readFileSync(BUNDLED_ROOTS_FILE, 'utf8');
  return text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? [];
}
