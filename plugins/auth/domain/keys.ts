import type { KeyObject } from 'node:crypto';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import { writeFileAtomic } from '../../../core/sdk.ts';
import { privateKeyFromJwk, publicKeyFromJwk, type SigningAlg } from './jws.ts';

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
  /** ES256: access tokens, and ID tokens of clients that ask for ES256. */
  keys: StoredKey[];
  /**
   * RS256, for ID tokens only: OpenID Connect's default algorithm, the one many OpenID clients (AppAuth
   * setups among them) accept exclusively. Absent in files written before it existed; added on open.
   */
  rsa_keys?: StoredKey[];
}

export interface LoadedKey {
  kid: string;
  alg: SigningAlg;
  status: 'current' | 'previous';
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: JWK;
}

export interface KeyRing {
  /** The current ES256 key (access tokens). */
  current(): LoadedKey;
  /** The current key of an algorithm (ID tokens). */
  currentFor(alg: SigningAlg): LoadedKey;
  byKid(kid: string): LoadedKey | undefined;
  all(): LoadedKey[];
  jwks(): { keys: JWK[] };
  /** New current keys for every algorithm; returns the new ES256 key. */
  rotate(): Promise<LoadedKey>;
  /** Drops retired keys whose tokens have all expired; true when the JWKS changed. */
  prune(): Promise<boolean>;
  readonly hmacSecret: Buffer;
}

const PUBLIC_MEMBERS: Record<SigningAlg, readonly (keyof JWK)[]> = {
  ES256: ['kty', 'crv', 'x', 'y'],
  RS256: ['kty', 'n', 'e'],
};
/** The public members of a key: never `d` or the RSA primes. */
const publicPart = (alg: SigningAlg, jwk: JWK): JWK =>
  Object.fromEntries(PUBLIC_MEMBERS[alg].map((m) => [m, jwk[m]])) as JWK;

async function newStoredKey(alg: SigningAlg): Promise<StoredKey> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true, modulusLength: 2048 });
  const jwk = await exportJWK(privateKey);
  const pub = publicPart(alg, jwk);
  return {
    kid: await calculateJwkThumbprint(pub),
    alg,
    private_jwk: jwk,
    created_at: new Date().toISOString(),
  };
}

function load(stored: StoredKey, status: LoadedKey['status']): LoadedKey {
  const pub = publicPart(stored.alg as SigningAlg, stored.private_jwk);
  const publicJwk: JWK = { ...pub, kid: stored.kid, alg: stored.alg, use: 'sig' };
  return {
    kid: stored.kid,
    alg: stored.alg as SigningAlg,
    status,
    privateKey: privateKeyFromJwk(stored.private_jwk),
    publicKey: publicKeyFromJwk(publicJwk),
    publicJwk,
  };
}

/**
 * The key file's writer: the store's atomic write (temp file with its own name, fsync, `.bak`, rename,
 * directory fsync; mode 0600), one save at a time. Each save writes the state as it is when its turn comes,
 * so the last one to finish always holds every change (two rotations never race on one temp file).
 */
function keyFileWriter(dir: string, file: KeyFile): () => Promise<void> {
  let queue: Promise<void> = Promise.resolve();
  return () => {
    const next = queue.then(() => writeFileAtomic(join(dir, FILE), JSON.stringify(file, null, 2)));
    queue = next.catch(() => {});
    return next;
  };
}

/**
 * Signing keys generated on first start and persisted (ES256, plus RS256 for ID tokens); rotation keeps the
 * previous public keys in the JWKS until every token they signed has expired (`maxTtlSec`).
 */
export async function openKeyRing(
  dir: string,
  maxTtlSec: number,
  now: () => number = Date.now,
): Promise<KeyRing> {
  let file: KeyFile;
  let dirty = false;
  try {
    file = JSON.parse(await readFile(join(dir, FILE), 'utf8')) as KeyFile;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    file = { hmac_secret: randomBytes(32).toString('base64url'), keys: [await newStoredKey('ES256')] };
    dirty = true;
  }
  if (!file.rsa_keys || file.rsa_keys.length === 0) {
    file.rsa_keys = [await newStoredKey('RS256')];
    dirty = true;
  }
  const save = keyFileWriter(dir, file);
  if (dirty) await save();
  const stillNeeded = (k: StoredKey) => !k.retired_at || Date.parse(k.retired_at) + maxTtlSec * 1000 > now();
  let ec: LoadedKey[] = [];
  let rsa: LoadedKey[] = [];
  const reload = () => {
    file.keys = file.keys.filter(stillNeeded);
    file.rsa_keys = (file.rsa_keys ?? []).filter(stillNeeded);
    ec = file.keys.map((k, i) => load(k, i === 0 ? 'current' : 'previous'));
    rsa = file.rsa_keys.map((k, i) => load(k, i === 0 ? 'current' : 'previous'));
  };
  reload();
  const all = () => [...ec, ...rsa];
  return {
    hmacSecret: Buffer.from(file.hmac_secret, 'base64url'),
    current: () => ec[0]!,
    currentFor: (alg) => (alg === 'RS256' ? rsa[0]! : ec[0]!),
    byKid: (kid) => all().find((k) => k.kid === kid),
    all,
    jwks: () => ({ keys: all().map((k) => k.publicJwk) }),
    async prune() {
      if (file.keys.every(stillNeeded) && (file.rsa_keys ?? []).every(stillNeeded)) return false;
      reload();
      await save();
      return true;
    },
    async rotate() {
      const at = new Date(now()).toISOString();
      const [nextEc, nextRsa] = await Promise.all([newStoredKey('ES256'), newStoredKey('RS256')]);
      for (const k of [...file.keys, ...(file.rsa_keys ?? [])]) k.retired_at ??= at;
      file.keys.unshift(nextEc);
      file.rsa_keys = [nextRsa, ...(file.rsa_keys ?? [])];
      reload();
      await save();
      return ec[0]!;
    },
  };
}
