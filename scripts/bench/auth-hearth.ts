/**
 * Hearth for `bench:auth`, as production runs it: the built bundle spawned the way systemd/hearth.service
 * does, on a fresh data dir, with the bench's client made through the admin API.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PRODUCTION_FLAGS, spawnBuiltHub } from '../lib/spawn-hub.ts';
import { pinServer } from './pin.ts';

export interface Target {
  name: string;
  tokenUrl: string;
  introspectUrl: string;
  clientId: string;
  secret: string;
  resource: string;
  /** Hearth only (oidc-provider has no token exchange): a form body exchanging a machine token. */
  exchangeBody?: string;
}

export interface Server {
  target: Target;
  pid: number;
  stop(): Promise<void>;
}

/** How systemd runs the hub (systemd/hearth.service): the built bundle, V8's young generation capped. */
export const HUB_FLAGS = PRODUCTION_FLAGS;
const ADMIN_KEY = `bench-admin-${randomUUID()}`;
export const root = path.resolve(import.meta.dirname, '../..');

/**
 * `BENCH_CPU_PROF=dir`: each server writes a V8 CPU profile (`--cpu-prof`) under dir/<name>, and the
 * measured issuance run's window is printed in the profile's clock (µs, CLOCK_MONOTONIC, the same clock
 * as process.hrtime) so `scripts/bench/profile-window.ts` can cut the profile to it.
 */
export const profileDir = process.env.BENCH_CPU_PROF;
export const profileFlags = (name: string): string[] =>
  profileDir
    ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(profileDir, name)}`, '--cpu-prof-interval=200']
    : [];

/**
 * Hearth as production runs it: `dist/core/cli/main.js start` (built first) with the systemd unit's flags,
 * at the default log level, in its own process on a fresh data dir. Lighting and auth on, the rest off (no
 * hardware, and nothing that announces itself beyond loopback). The bench client is made through the admin
 * API, as an operator would.
 */
export async function spawnHearth(dist = 'dist'): Promise<Server> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'hearth-bench-auth-'));
  const off = Object.fromEntries(
    ['console', 'hue', 'matter', 'mqtt-devices', 'translation', 'zigbee'].map((p) => [p, { enabled: false }]),
  );
  const authConfig = { host: '127.0.0.1', port: 0, ...JSON.parse(process.env.BENCH_AUTH_CONFIG ?? '{}') };
  writeFileSync(
    path.join(dataDir, 'bench-config.json'),
    JSON.stringify({ plugins: { ...off, auth: authConfig } }),
  );
  const hub = await spawnBuiltHub({
    dataDir,
    dist: path.resolve(root, dist),
    flags: [...HUB_FLAGS, ...profileFlags('hearth')],
    logLevel: 'info', // the unit's default level
    adminKey: ADMIN_KEY,
    env: { HEARTH_CONFIG: path.join(dataDir, 'bench-config.json') },
    // Both listener lines of the banner, in whichever order they come.
    until: /^(?=[\s\S]*^\s+auth\s+http:\S+$)(?=[\s\S]*^\s+admin\s+http:\S+$)/m,
  });
  pinServer(hub.child.pid!);
  const admin = hub.find(/^\s+admin\s+(http:\S+)$/m);
  const auth = hub.find(/^\s+auth\s+(http:\S+)$/m);
  const stop = async () => {
    await hub.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    return { target: await setUpHearth(admin, auth), pid: hub.child.pid!, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The admin API, with the bench's admin key; throws on anything but 2xx. */
async function adminCall(base: string, method: string, p: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN_KEY}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 200)}`);
  return text ? JSON.parse(text) : undefined;
}

/** A client-credentials client (client_secret_basic), and a machine token's exchange through a fronting link. */
async function setUpHearth(adminUrl: string, auth: string): Promise<Target> {
  const admin = (method: string, p: string, body?: unknown) => adminCall(adminUrl, method, p, body);
  const sites = (await admin('GET', '/admin/sites')) as Array<{ siteid: string }>;
  const resource = `urn:hearth:site:${sites[0]!.siteid}`;
  const c = (await admin('POST', '/admin/clients', {
    client_name: 'bench switch',
    redirect_uris: [],
    grant_types: ['client_credentials'],
    response_types: [],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: 'lights:read lights:write bench:read',
    agent: false,
    agent_description: '',
  })) as { client_id: string; client_secret: string };
  // Token exchange: a machine token for a second resource, exchanged for the site through a fronting link.
  await admin('POST', '/admin/resources', {
    slug: 'bench-api',
    uri: '',
    backend_kind: 'mint',
    display_name: 'bench api',
    scopes: [{ name: 'bench:read' }],
  });
  await admin('POST', '/admin/fronting', {
    source: 'bench-api',
    target: resource,
    scope_map: { 'bench:read': ['lights:read'] },
  });
  await admin('PATCH', `/admin/clients/${c.client_id}`, {
    grant_types: ['client_credentials', 'urn:ietf:params:oauth:grant-type:token-exchange'],
  });
  const subject = (await (
    await fetch(`${auth}/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        resource: 'urn:hearth:resource:bench-api',
      }),
    })
  ).json()) as { access_token: string };
  const exchangeBody = new URLSearchParams({
    grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
    subject_token: subject.access_token,
    subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
    resource,
  }).toString();
  return {
    name: 'hearth',
    tokenUrl: `${auth}/oauth/token`,
    introspectUrl: `${auth}/oauth/introspect`,
    clientId: c.client_id,
    secret: c.client_secret,
    resource,
    exchangeBody,
  };
}
