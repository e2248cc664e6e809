import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestHub } from '../helpers/hub.ts';
import { echoPlugin } from './fixtures/plugins.ts';

function get(url: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { ca }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => {
          body += c.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

describe('HTTPS listeners', () => {
  it('serves every listener over TLS with a generated certificate that names the box and loopback', async () => {
    const t = await startTestHub({
      extraPlugins: [echoPlugin],
      config: { http: { tls: { enabled: true, hostnames: ['hearth.lan'] } } },
    });
    expect(t.url).toMatch(/^https:\/\//);
    expect(t.adminUrl).toMatch(/^https:\/\//);
    const cert = readFileSync(path.join(t.dataDir, 'core', 'tls-cert.pem'), 'utf8');
    const san = new X509Certificate(cert).subjectAltName ?? '';
    expect(san).toContain('DNS:hearth.lan');
    expect(san).toContain('IP Address:127.0.0.1');
    // A client that trusts the certificate gets through; one that does not is refused.
    expect((await get(`${t.url}/echo`, cert)).body).toBe('{"greeting":"hi"}');
    await expect(get(`${t.url}/echo`, '')).rejects.toThrow(/self[- ]signed|unable to verify/i);
    expect((await get(`${t.adminUrl}/admin/echo`, cert)).status).toBe(401);
    // WebSocket upgrades (here MQTT over WebSocket) ride the same TLS listener.
    const ws = new WebSocket(`${t.url.replace('https', 'wss')}/mqtt`, 'mqtt', { ca: cert });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    ws.close();
    // The key never leaves the data dir's core folder, and only its owner can read it.
    const { statSync } = await import('node:fs');
    expect(statSync(path.join(t.dataDir, 'core', 'tls-key.pem')).mode & 0o077).toBe(0);
    // A restart reuses the certificate a phone may already trust.
    const again = await t.restart();
    expect(readFileSync(path.join(t.dataDir, 'core', 'tls-cert.pem'), 'utf8')).toBe(cert);
    await again.stop();
  });

  it('uses a configured certificate and key', async () => {
    const first = await startTestHub({ config: { http: { tls: { enabled: true } } } });
    const certFile = path.join(first.dataDir, 'core', 'tls-cert.pem');
    const keyFile = path.join(first.dataDir, 'core', 'tls-key.pem');
    const cert = readFileSync(certFile, 'utf8');
    const t = await startTestHub({
      extraPlugins: [echoPlugin],
      config: { http: { tls: { enabled: true, certFile, keyFile } } },
    });
    expect((await get(`${t.url}/echo`, cert)).status).toBe(200);
    await t.stop();
    await first.stop();
  });
});
