import type { KeyObject } from 'node:crypto';
import { randomBytes } from 'node:crypto';
import { chmod, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import { privateKeyFromJwk, publicKeyFromJwk } from './jws.ts';

const ALG = 'ES256';
const FILE = 'signing-keys.json';

interface StoredKey {
  kid: string;
  alg: string;
  private_jwk: JWK;
  created_at: string;
  /** Set when a newer key took over; the public part stays in the JWKS until `retired_at + maxTtl`. */
  retired_at?: string;
}

interface KeyFile {
  /** Key for cookie MACs, CSRF tokens and the client-secret pepper. */
  hmac_secret: string;
  keys: StoredKey[];
}

export interface LoadedKey {
  kid: string;
  alg: string;
  status: 'current' | 'previous';
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: JWK;
}

export interface KeyRing {
  current(): LoadedKey;
  byKid(kid: string): LoadedKey | undefined;
  all(): LoadedKey[];
  jwks(): { keys: JWK[] };
  rotate(): Promise<LoadedKey>;
  /** Drops retired keys whose tokens have all expired; true when the JWKS changed. */
  prune(): Promise<boolean>;
  readonly hmacSecret: Buffer;
}

async function newStoredKey(): Promise<StoredKey> {
  const { privateKey } = await generateKeyPair(ALG, { extractable: true });
  const jwk = await exportJWK(privateKey);
  const pub = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y } as JWK;
  return {
    kid: await calculateJwkThumbprint(pub),
    alg: ALG,
    private_jwk: jwk,
    created_at: new Date().toISOString(),
  };
}

async function load(stored: StoredKey, status: LoadedKey['status']): Promise<LoadedKey> {
  const { d: _d, ...pub } = stored.private_jwk;
  const publicJwk: JWK = { ...pub, kid: stored.kid, alg: stored.alg, use: 'sig' };
  return {
    kid: stored.kid,
    alg: stored.alg,
    status,
    privateKey: privateKeyFromJwk(stored.private_jwk),
    publicKey: publicKeyFromJwk(publicJwk),
    publicJwk,
  };
}

/** Writes the key file with mode 0600 (temp file + rename, so a crash never leaves half a key file). */
async function save(dir: string, file: KeyFile): Promise<void> {
  const tmp = join(dir, `${FILE}.tmp`);
  await writeFile(tmp, JSON.stringify(file, null, 2), { mode: 0o600 });
  await chmod(tmp, 0o600);
  await rename(tmp, join(dir, FILE));
}

/**
 * ES256 signing keys generated on first start and persisted; rotation keeps the previous public keys in
 * the JWKS until every token they signed has expired (`maxTtlSec`).
 */
export async function openKeyRing(
  dir: string,
  maxTtlSec: number,
  now: () => number = Date.now,
): Promise<KeyRing> {
  let file: KeyFile;
  try {
    file = JSON.parse(await readFile(join(dir, FILE), 'utf8')) as KeyFile;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    file = { hmac_secret: randomBytes(32).toString('base64url'), keys: [await newStoredKey()] };
    await save(dir, file);
  }
  const stillNeeded = (k: StoredKey) => !k.retired_at || Date.parse(k.retired_at) + maxTtlSec * 1000 > now();
  let loaded: LoadedKey[] = [];
  const reload = async () => {
    file.keys = file.keys.filter(stillNeeded);
    loaded = await Promise.all(file.keys.map((k, i) => load(k, i === 0 ? 'current' : 'previous')));
  };
  await reload();
  return {
    hmacSecret: Buffer.from(file.hmac_secret, 'base64url'),
    current: () => loaded[0]!,
    byKid: (kid) => loaded.find((k) => k.kid === kid),
    all: () => [...loaded],
    jwks: () => ({ keys: loaded.map((k) => k.publicJwk) }),
    async prune() {
      if (file.keys.every(stillNeeded)) return false;
      await reload();
      await save(dir, file);
      return true;
    },
    async rotate() {
      const at = new Date(now()).toISOString();
      for (const k of file.keys) k.retired_at ??= at;
      file.keys.unshift(await newStoredKey());
      await reload();
      await save(dir, file);
      return loaded[0]!;
    },
  };
}
