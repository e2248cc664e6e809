/** Opaque secrets are stored only as hashes and never logged (docs/auth.md#tokens-and-secrets-at-rest). */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import * as client from 'openid-client';
import { expect, test } from 'vitest';
import {
  adminClient,
  adminUser,
  authorizeInBrowser,
  Browser,
  siteResourceUri,
  startAuthHub,
} from './helpers.ts';

const REDIRECT = 'http://127.0.0.1/callback';

test('codes, refresh tokens, client secrets and passwords never reach the disk or the log', async () => {
  const hub = await startAuthHub();
  try {
    const u = await adminUser(hub, 'hal@home.test', 'hal password 123');
    const c = await adminClient(hub, {
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      application_type: 'native',
    });
    const config = await client.discovery(
      new URL(hub.auth),
      c.client_id,
      undefined,
      client.ClientSecretBasic(c.client_secret!),
      { execute: [client.allowInsecureRequests], algorithm: 'oauth2' },
    );
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'lights:read',
      resource: await siteResourceUri(hub),
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const cb = await authorizeInBrowser(new Browser(hub.auth), url.toString(), u);
    const tokens = await client.authorizationCodeGrant(config, cb, { pkceCodeVerifier: verifier });
    const rotated = await client.refreshTokenGrant(config, tokens.refresh_token!);
    await hub.stop({ keepData: true });
    const files = readdirSync(hub.dataDir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => readFileSync(path.join(e.parentPath, e.name), 'utf8'));
    expect(files.join('\n')).toContain(c.client_id); // the files are there
    for (const secret of [
      cb.searchParams.get('code')!,
      tokens.refresh_token!,
      rotated.refresh_token!,
      c.client_secret!,
      u.password,
    ]) {
      expect(files.some((f) => f.includes(secret))).toBe(false);
    }
    // Nor any log line (debug level, access log on), access tokens included.
    const logs = JSON.stringify(hub.logs);
    expect(logs).toContain('/oauth/token');
    for (const secret of [
      cb.searchParams.get('code')!,
      tokens.refresh_token!,
      tokens.access_token,
      rotated.refresh_token!,
      rotated.access_token,
      c.client_secret!,
      u.password,
    ]) {
      expect(logs.includes(secret)).toBe(false);
    }
  } finally {
    await hub.stop().catch(() => {});
    rmSync(hub.dataDir, { recursive: true, force: true });
  }
});
