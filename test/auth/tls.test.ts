import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type AuthHub, adminClient, siteResourceUri, startAuthHub } from './helpers.ts';

let h: AuthHub;
let issuer: string;
let ca: string;

/** The certificate the server presents (fetched without trusting it, then pinned for real requests). */
function peerCertificate(url: URL): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = tls.connect({ host: url.hostname, port: Number(url.port), rejectUnauthorized: false }, () => {
      const raw = s.getPeerCertificate().raw;
      s.end();
      resolve(new X509Certificate(raw).toString());
    });
    s.once('error', reject);
  });
}

/** An HTTPS request that trusts only the pinned certificate (hostname checked against its SANs). */
function request(
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
  base = issuer,
  trusted = ca,
) {
  return new Promise<{
    status: number;
    headers: Record<string, string | string[] | undefined>;
    body: string;
  }>((resolve, reject) => {
    const req = https.request(
      new URL(path, base),
      { method: init.method ?? 'GET', headers: init.headers ?? {}, ca: trusted },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.once('error', reject);
    req.end(init.body);
  });
}

beforeAll(async () => {
  // The core's http.tls serves every listener, the authorization server's included, over HTTPS.
  h = await startAuthHub({ config: { http: { tls: { enabled: true } } } });
  issuer = h.listenerUrl('auth');
  ca = await peerCertificate(new URL(issuer));
});
afterAll(async () => {
  await h?.stop();
});

describe('HTTPS on the auth listener', () => {
  test('issuer is https, the certificate verifies for 127.0.0.1, and the TLS-off notice is gone', async () => {
    expect(issuer).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const res = await request('/.well-known/oauth-authorization-server');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ issuer, token_endpoint: `${issuer}/oauth/token` });
    const config = (await h.admin('GET', '/admin/system/config')).body as { notices: Array<{ id: string }> };
    expect(config.notices.map((n) => n.id)).not.toContain('tls_off');
  });

  test('cookies get Secure and the __Host- prefix', async () => {
    const res = await request('/login');
    const cookie = [res.headers['set-cookie']].flat()[0] ?? '';
    expect(cookie).toMatch(/^__Host-hearth_login=/);
    expect(cookie).toMatch(/; Secure/);
  });

  test('client credentials over HTTPS; plain HTTP on the TLS port gets no answer', async () => {
    const site = await siteResourceUri(h);
    const c = await adminClient(h, { scope: 'lights:read' });
    const res = await request('/oauth/token', {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: site }).toString(),
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).scope).toBe('lights:read');
    await expect(fetch(`${issuer.replace('https:', 'http:')}/health`)).rejects.toThrow();
  });

  test('the generated certificate is kept across restarts', async () => {
    const before = new X509Certificate(ca).fingerprint256;
    h = Object.assign(await h.restart(), { auth: '' });
    issuer = h.listenerUrl('auth');
    expect(new X509Certificate(await peerCertificate(new URL(issuer))).fingerprint256).toBe(before);
    expect(JSON.parse((await request('/.well-known/oauth-authorization-server')).body).issuer).toBe(issuer);
    // The private keys on disk are readable by the owner only.
    const keys = readdirSync(h.dataDir, { recursive: true, withFileTypes: true }).filter(
      (e) => e.isFile() && ['tls-key.pem', 'signing-keys.json'].includes(e.name),
    );
    expect(keys.map((e) => e.name).sort()).toEqual(['signing-keys.json', 'tls-key.pem']);
    for (const e of keys) expect(statSync(path.join(e.parentPath, e.name)).mode & 0o777, e.name).toBe(0o600);
  });
});

describe('HTTPS from a configured certificate', () => {
  test('the listener serves the operator certificate and the issuer follows', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hearth-cert-'));
    const certFile = path.join(dir, 'cert.pem');
    const keyFile = path.join(dir, 'key.pem');
    execFileSync('openssl', [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1'],
      ...['-subj', '/CN=hearth.test', '-addext', 'subjectAltName=DNS:hearth.test,IP:127.0.0.1'],
      ...['-keyout', keyFile, '-out', certFile],
    ]);
    const hub = await startAuthHub({ config: { http: { tls: { enabled: true, certFile, keyFile } } } });
    try {
      const auth = hub.listenerUrl('auth');
      const discovery = await request(
        '/.well-known/oauth-authorization-server',
        {},
        auth,
        readFileSync(certFile, 'utf8'),
      );
      const meta = JSON.parse(discovery.body) as { issuer: string };
      expect(meta.issuer).toBe(auth);
      expect(meta.issuer).toMatch(/^https:\/\//);
      const served = new X509Certificate(await peerCertificate(new URL(meta.issuer)));
      expect(served.fingerprint256).toBe(new X509Certificate(readFileSync(certFile)).fingerprint256);
      // Nothing self-signed was generated next to it.
      const files = readdirSync(hub.dataDir, { recursive: true }).map(String);
      expect(files.some((f) => f.endsWith('tls-cert.pem'))).toBe(false);
      expect(files.some((f) => f.endsWith('signing-keys.json'))).toBe(true);
    } finally {
      await hub.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
