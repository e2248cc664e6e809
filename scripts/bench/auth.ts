// `npm run bench:auth`: client-credentials tokens/s (plain and DPoP-bound) and introspections/s for Hearth's
// authorization server next to oidc-provider (client credentials, ES256 JWT access tokens, DPoP on both),
// each in its own process, loaded by the same autocannon run (50 connections). Hearth runs as systemd runs it
// (the built bundle, the unit's V8 flags, default log level) and persists every issuance (bounded log,
// coalesced writes); oidc-provider runs in plain Node with its memory adapter.
// Targets (plugins/auth/README.md "Performance"): Hearth ≥ 3× oidc-provider on issuance; p99 ≤ 10 ms at 50 concurrent clients.
import { execFileSync, spawn } from 'node:child_process';
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import http from 'node:http';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { profileDir, profileFlags, root, type Server, spawnHearth, type Target } from './auth-hearth.ts';
import { pinLoadGenerator, pinningNote, pinServer } from './pin.ts';
import { cpuMicros } from './proc-cpu.ts';

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 50;

/** Server mode (oidc-provider): boots it on loopback and prints its Target as one JSON line. */
async function serve(): Promise<void> {
  // oidc-provider ships no types; this is the one constructor and method the benchmark uses.
  type ProviderCtor = new (
    issuer: string,
    config: Record<string, unknown>,
  ) => { callback(): import('node:http').RequestListener };
  const { default: Provider } = (await import('oidc-provider' as string)) as { default: ProviderCtor };
  const { exportJWK, generateKeyPair } = await import('jose');
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), alg: 'ES256', use: 'sig', kid: 'bench' };
  const http = await import('node:http');
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const issuer = `http://127.0.0.1:${port}`;
  const resource = 'urn:bench:site';
  const secret = 'bench-secret-0123456789abcdef0123456789abcdef';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'bench',
        client_secret: secret,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
        id_token_signed_response_alg: 'ES256',
      },
    ],
    jwks: { keys: [jwk] },
    scopes: ['lights:read', 'lights:write'],
    features: {
      devInteractions: { enabled: false },
      dPoP: { enabled: true },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: 'lights:read lights:write',
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'ES256' } },
        }),
      },
    },
  });
  server.on('request', provider.callback());
  // An exit of its own on SIGTERM, so a --cpu-prof profile is written.
  process.once('SIGTERM', () => process.exit(0));
  print({
    name: 'oidc-provider',
    tokenUrl: `${issuer}/token`,
    introspectUrl: `${issuer}/token/introspection`,
    clientId: 'bench',
    secret,
    resource,
  });
}

function print(t: Target): void {
  process.stdout.write(`${JSON.stringify(t)}\n`);
}

/** oidc-provider in its own plain Node process (its documented way to run), NODE_ENV=production. */
async function spawnOidcProvider(): Promise<Server> {
  const args = [...profileFlags('oidc-provider'), '--import', 'tsx', import.meta.filename, '--serve'];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`oidc-provider server exited (${code})`)));
  });
  pinServer(child.pid!);
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
  };
  return { target: JSON.parse(line) as Target, pid: child.pid!, stop };
}

const hearthDist = process.env.BENCH_HEARTH_DIST;
const spawnServer = (kind: string): Promise<Server> =>
  kind === 'hearth' ? spawnHearth(hearthDist ?? 'dist') : spawnOidcProvider();

const basic = (t: Target) => `Basic ${Buffer.from(`${t.clientId}:${t.secret}`).toString('base64')}`;

const PACED_RATE = Number(process.env.BENCH_RATE ?? 500);

/**
 * 50 concurrent clients, each sending one request every 50/rate seconds on its own keep-alive connection,
 * start times spread evenly: latency at a steady load instead of under saturation (autocannon's rate
 * option sends in bursts, which measures its queue, not the server).
 */
async function paced(url: string, auth: string, body: string, rate: number, seconds: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const target = new URL(url);
  const headers = {
    authorization: auth,
    'content-type': 'application/x-www-form-urlencoded',
    'content-length': Buffer.byteLength(body),
  };
  const one = () =>
    new Promise<number>((resolve, reject) => {
      const t0 = performance.now();
      const req = http.request(
        { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent, headers },
        (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 200
              ? resolve(performance.now() - t0)
              : reject(new Error(`HTTP ${res.statusCode}`)),
          );
        },
      );
      req.once('error', reject);
      req.end(body);
    });
  const interval = (CONNECTIONS / rate) * 1000;
  const until = performance.now() + seconds * 1000;
  const samples: number[] = [];
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, i) => {
      await sleep((interval / CONNECTIONS) * i);
      for (let next = performance.now(); next < until; next += interval) {
        samples.push(await one());
        await sleep(Math.max(0, next + interval - performance.now()));
      }
    }),
  );
  agent.destroy();
  samples.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]! * 100) / 100;
  return { rps: Math.round(samples.length / seconds), p50: at(0.5), p99: at(0.99) };
}

/**
 * DPoP proofs (RFC 9449) for one key, each with a fresh jti and iat, made with node:crypto in the load
 * generator (about 30 µs each), so every request carries a proof the server has not seen.
 */
function proofMaker(htu: string): () => string {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { kty, crv, x, y } = publicKey.export({ format: 'jwk' });
  const enc = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const header = enc({ typ: 'dpop+jwt', alg: 'ES256', jwk: { kty, crv, x, y } });
  return () => {
    const input = `${header}.${enc({ jti: randomUUID(), htm: 'POST', htu, iat: Math.floor(Date.now() / 1000) })}`;
    const sig = sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' });
    return `${input}.${sig.toString('base64url')}`;
  };
}

/** One saturating autocannon run; with `proof`, every request gets a new DPoP header. */
async function load(url: string, auth: string, body: string, proof?: () => string) {
  const headers = { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' };
  const r = await autocannon({
    url,
    method: 'POST',
    connections: CONNECTIONS,
    duration: DURATION,
    headers,
    body,
    ...(proof
      ? {
          requests: [
            {
              method: 'POST' as const,
              body,
              setupRequest: (req: autocannon.Request) => ({ ...req, headers: { ...headers, dpop: proof() } }),
            },
          ],
        }
      : {}),
  });
  return {
    rps: Math.round(r.requests.average),
    total: r.requests.total,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
  };
}

async function measure(t: Target, pid: number) {
  const tokenBody = `grant_type=client_credentials&resource=${encodeURIComponent(t.resource)}&scope=lights%3Aread`;
  const first = await fetch(t.tokenUrl, {
    method: 'POST',
    headers: { authorization: basic(t), 'content-type': 'application/x-www-form-urlencoded' },
    body: tokenBody,
  });
  const issued = (await first.json()) as { access_token?: string };
  if (!issued.access_token) throw new Error(`${t.name}: token request failed: ${JSON.stringify(issued)}`);
  const token = issued.access_token;
  const check = await fetch(t.introspectUrl, {
    method: 'POST',
    headers: { authorization: basic(t), 'content-type': 'application/x-www-form-urlencoded' },
    body: `token=${token}`,
  });
  const checked = (await check.json()) as { active?: boolean; error?: string };
  const active = checked.active ?? `${check.status} ${checked.error}`;
  await load(t.tokenUrl, basic(t), tokenBody); // warm-up (JIT), not reported
  // The server's own CPU per token: under saturation the shared load generator caps both servers' rates,
  // so CPU time is the figure that says what each would do with a core to itself.
  const cpuBefore = cpuMicros(pid);
  const from = process.hrtime.bigint() / 1000n;
  const issue = await load(t.tokenUrl, basic(t), tokenBody);
  const cpuPerToken = Math.round((cpuMicros(pid) - cpuBefore) / issue.total);
  if (profileDir) console.log(`profile window ${t.name} ${from} ${process.hrtime.bigint() / 1000n}`);
  const introspect = await load(t.introspectUrl, basic(t), `token=${token}`);
  const steady = await paced(t.tokenUrl, basic(t), tokenBody, PACED_RATE, DURATION);
  // DPoP-bound client credentials: one key, a new proof per request.
  const proof = proofMaker(t.tokenUrl);
  const bound = await fetch(t.tokenUrl, {
    method: 'POST',
    headers: { authorization: basic(t), 'content-type': 'application/x-www-form-urlencoded', dpop: proof() },
    body: tokenBody,
  });
  const boundType = ((await bound.json()) as { token_type?: string }).token_type;
  if (boundType?.toLowerCase() !== 'dpop') throw new Error(`${t.name}: DPoP token request gave ${boundType}`);
  const cpuBeforeDpop = cpuMicros(pid);
  const dpop = await load(t.tokenUrl, basic(t), tokenBody, proof);
  const cpuPerDpopToken = Math.round((cpuMicros(pid) - cpuBeforeDpop) / dpop.total);
  let exchange: Awaited<ReturnType<typeof load>> | undefined;
  if (t.exchangeBody) {
    const one = await fetch(t.tokenUrl, {
      method: 'POST',
      headers: { authorization: basic(t), 'content-type': 'application/x-www-form-urlencoded' },
      body: t.exchangeBody,
    });
    const got = (await one.json()) as { issued_token_type?: string };
    if (!got.issued_token_type) throw new Error(`${t.name}: token exchange failed: ${JSON.stringify(got)}`);
    exchange = await load(t.tokenUrl, basic(t), t.exchangeBody);
  }
  return { issue, cpuPerToken, introspect, active, steady, dpop, cpuPerDpopToken, exchange };
}

if (process.argv[2] === '--serve') {
  await serve();
} else {
  // BENCH_HEARTH_DIST=dir: a bundle built before (e.g. of another commit, for a before/after), not rebuilt.
  if (!hearthDist) execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });
  // Alternating rounds: on a shared machine, load from elsewhere hits both servers alike; the best round of
  // each is the least disturbed one.
  const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
  pinLoadGenerator();
  const results: Record<string, Array<Awaited<ReturnType<typeof measure>>>> = {
    hearth: [],
    'oidc-provider': [],
  };
  console.log(
    `auth benchmark: ${CONNECTIONS} connections, ${DURATION} s per run, ${rounds} alternating rounds, autocannon, loopback` +
      pinningNote(),
  );
  for (let round = 1; round <= rounds; round++) {
    for (const kind of ['hearth', 'oidc-provider']) {
      const s = await spawnServer(kind);
      try {
        const r = await measure(s.target, s.pid);
        results[kind]!.push(r);
        console.log(
          `round ${round} ${kind.padEnd(14)} client_credentials ${String(r.issue.rps).padStart(6)} tokens/s  p50 ${r.issue.p50} ms  p99 ${r.issue.p99} ms  non-2xx ${r.issue.non2xx}  server CPU ${r.cpuPerToken} µs/token` +
            ` | introspection ${String(r.introspect.rps).padStart(6)} req/s  p99 ${r.introspect.p99} ms  (token active: ${r.active})` +
            ` | ${CONNECTIONS} clients at ${r.steady.rps}/s: p50 ${r.steady.p50} ms p99 ${r.steady.p99} ms` +
            ` | DPoP-bound client_credentials ${String(r.dpop.rps).padStart(6)} tokens/s  p99 ${r.dpop.p99} ms  non-2xx ${r.dpop.non2xx}  server CPU ${r.cpuPerDpopToken} µs/token` +
            (r.exchange
              ? ` | token exchange ${String(r.exchange.rps).padStart(6)} req/s  p99 ${r.exchange.p99} ms  non-2xx ${r.exchange.non2xx}`
              : ''),
        );
      } finally {
        await s.stop();
      }
    }
  }
  const best = (kind: string) => [...results[kind]!].sort((a, b) => b.issue.rps - a.issue.rps)[0]!;
  const [h, o] = [best('hearth'), best('oidc-provider')];
  const steadyP99 = Math.min(...results.hearth!.map((r) => r.steady.p99));
  const leanest = (kind: string) => Math.min(...results[kind]!.map((r) => r.cpuPerToken));
  console.log(
    `best rounds: hearth ${h.issue.rps} tokens/s, oidc-provider ${o.issue.rps} tokens/s, ratio ${(h.issue.rps / o.issue.rps).toFixed(2)}× (target ≥ 3×); ` +
      `server CPU per token hearth ${leanest('hearth')} µs, oidc-provider ${leanest('oidc-provider')} µs (${(leanest('oidc-provider') / leanest('hearth')).toFixed(2)}× less); ` +
      `hearth introspection ${Math.max(...results.hearth!.map((r) => r.introspect.rps))} req/s; ` +
      `hearth p99 ${h.issue.p99} ms saturated, best ${steadyP99} ms at ${PACED_RATE} tokens/s from ${CONNECTIONS} clients (target ≤ 10 ms)`,
  );
  const bestDpop = (kind: string) => Math.max(...results[kind]!.map((r) => r.dpop.rps));
  const leanestDpop = (kind: string) => Math.min(...results[kind]!.map((r) => r.cpuPerDpopToken));
  console.log(
    `DPoP-bound client_credentials, best rounds: hearth ${bestDpop('hearth')} tokens/s, oidc-provider ${bestDpop('oidc-provider')} tokens/s, ` +
      `ratio ${(bestDpop('hearth') / bestDpop('oidc-provider')).toFixed(2)}×; server CPU per token hearth ${leanestDpop('hearth')} µs, oidc-provider ${leanestDpop('oidc-provider')} µs ` +
      '(the load generator signs a proof per request, which may cap both rates; CPU per token is the fairer figure)',
  );
  console.log(
    `token exchange (Hearth only; oidc-provider has no RFC 8693 grant): best ${Math.max(...results.hearth!.map((r) => r.exchange?.rps ?? 0))} tokens/s`,
  );
  if (typeof o.active !== 'boolean')
    console.log(
      'note: oidc-provider does not introspect JWT-format access tokens; its introspection figure is an error response',
    );
}
