/**
 * Certificates for the simulated bridge, made with openssl at test time (nothing secret is committed): a
 * root CA standing in for the Hue bridge root, and a leaf whose CN is the bridge id in lower case, signed by
 * that root — the shape a real bridge presents (docs/hue.md#tls).
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface BridgeCerts {
  /** The root that signed the leaf (what a verifying client trusts). */
  rootPem: string;
  /** The bridge's certificate, CN = `cn` (followed by the intermediate when there is one). */
  certPem: string;
  keyPem: string;
  /** SHA-256 fingerprint of the leaf, `AB:CD:…` as node:tls prints it. */
  fingerprint256: string;
}

const openssl = (dir: string, args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });

/**
 * A fresh root and a leaf for `cn` (the bridge id; pass another value to make a mismatching certificate).
 * With `intermediate`, the root signs an intermediate CA of that name which signs the leaf, and the bridge
 * serves leaf and intermediate (the chain of newer bridges); otherwise the root signs the leaf directly.
 */
export function makeBridgeCerts(
  cn: string,
  rootName = 'root-bridge',
  opts: { intermediate?: string } = {},
): BridgeCerts {
  const dir = mkdtempSync(path.join(tmpdir(), 'hue-certs-'));
  try {
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    openssl(
      dir,
      ['req', '-x509', ...ec, '-keyout', 'root.key', '-out', 'root.pem', '-days', '2'].concat([
        '-subj',
        `/C=NL/O=Philips Hue/CN=${rootName}`,
      ]),
    );
    openssl(dir, [
      'req',
      ...ec,
      '-keyout',
      'leaf.key',
      '-out',
      'leaf.csr',
      '-subj',
      `/C=NL/O=Philips Hue/CN=${cn}`,
    ]);
    let signer = 'root';
    if (opts.intermediate) {
      openssl(dir, [
        'req',
        ...ec,
        '-keyout',
        'ca.key',
        '-out',
        'ca.csr',
        '-subj',
        `/C=NL/O=Signify Hue/CN=${opts.intermediate}`,
      ]);
      writeFileSync(
        path.join(dir, 'ca.cnf'),
        'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n',
      );
      openssl(dir, [
        'x509',
        '-req',
        '-in',
        'ca.csr',
        '-CA',
        'root.pem',
        '-CAkey',
        'root.key',
        '-CAcreateserial',
        '-out',
        'ca.pem',
        '-days',
        '2',
        '-extfile',
        'ca.cnf',
      ]);
      signer = 'ca';
    }
    // Like a real bridge: no subjectAltName, so the CN is the only name the client can check.
    writeFileSync(path.join(dir, 'ext.cnf'), 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\n');
    openssl(
      dir,
      [
        'x509',
        '-req',
        '-in',
        'leaf.csr',
        '-CA',
        `${signer}.pem`,
        '-CAkey',
        `${signer}.key`,
        '-CAcreateserial',
      ].concat(['-out', 'leaf.pem', '-days', '2', '-extfile', 'ext.cnf']),
    );
    const leaf = readFileSync(path.join(dir, 'leaf.pem'), 'utf8');
    const certPem = opts.intermediate ? leaf + readFileSync(path.join(dir, 'ca.pem'), 'utf8') : leaf;
    return {
      rootPem: readFileSync(path.join(dir, 'root.pem'), 'utf8'),
      certPem,
      keyPem: readFileSync(path.join(dir, 'leaf.key'), 'utf8'),
      fingerprint256: new X509Certificate(leaf).fingerprint256,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
