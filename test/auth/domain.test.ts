import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { compactVerify, decodeProtectedHeader, SignJWT } from 'jose';
import { afterEach, describe, expect, test } from 'vitest';
import { createTokenSigner } from '../../plugins/auth/domain/access-token.ts';
import { openKeyRing } from '../../plugins/auth/domain/keys.ts';
import { createLockout } from '../../plugins/auth/domain/lockout.ts';
import { createPasswordHasher } from '../../plugins/auth/domain/passwords.ts';
import { redirectUriMatches, redirectUriProblem } from '../../plugins/auth/domain/redirect-uri.ts';
import { hashSecret, verifySecret } from '../../plugins/auth/domain/secrets.ts';
import { SignBatch } from '../../plugins/auth/domain/sign-batch.ts';
import { emptyDict, own, toDict } from '../../plugins/auth/state/collections.ts';
import { createIssuanceRegistry } from '../../plugins/auth/state/issuances.ts';
import type { Issuance, Revocation } from '../../plugins/auth/state/model.ts';
import { tokenFilter } from '../../plugins/auth/state/token-filter.ts';

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'hearth-auth-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('redirect URI rules', () => {
  test('exact match, loopback port may vary, nothing else does (RFC 8252 §7.3)', () => {
    const reg = ['https://app.example/cb', 'http://127.0.0.1/cb'];
    expect(redirectUriMatches(reg, 'https://app.example/cb')).toBe(true);
    expect(redirectUriMatches(reg, 'https://app.example/cb/')).toBe(false);
    expect(redirectUriMatches(reg, 'https://app.example:444/cb')).toBe(false);
    expect(redirectUriMatches(reg, 'http://127.0.0.1:53111/cb')).toBe(true);
    expect(redirectUriMatches(reg, 'http://127.0.0.1:53111/other')).toBe(false);
    expect(redirectUriMatches(reg, 'http://localhost:53111/cb')).toBe(false);
  });
  test('loopback redirect URIs are normalised before matching: only the port of an IP literal may differ', () => {
    const reg = ['http://127.0.0.1/cb', 'http://[::1]:8080/cb?x=1', 'http://localhost:4000/cb'];
    expect(redirectUriMatches(reg, 'http://127.0.0.1:65535/cb')).toBe(true);
    expect(redirectUriMatches(reg, 'http://[::1]/cb?x=1')).toBe(true);
    expect(redirectUriMatches(reg, 'http://[::1]:9/cb?x=1')).toBe(true);
    for (const p of [
      'http://127.0.0.1:5000/x/../cb',
      'http://127.0.0.1/./cb',
      'http://127.1/cb',
      'http://127.0.0.1.:5000/cb',
      'http://user@127.0.0.1/cb',
      'http://127.0.0.1:5000@127.0.0.1/cb',
      'HTTP://127.0.0.1/cb',
      'http://127.0.0.1:5000/%63b',
      'http://127.0.0.1:5000/cb/',
      'http://127.0.0.1:99999/cb',
      'http://127.0.0.1:/cb',
      'http://[0:0:0:0:0:0:0:1]/cb?x=1',
      'http://[::1]/cb?x=2',
      'http://localhost:4001/cb',
      'http://localhost/cb',
    ])
      expect(redirectUriMatches(reg, p), p).toBe(false);
    expect(redirectUriMatches(reg, 'http://localhost:4000/cb')).toBe(true);
  });
  test('web clients need https and no loopback; native may use loopback http', () => {
    expect(redirectUriProblem('http://127.0.0.1/cb', 'web')).toMatch(/https/);
    expect(redirectUriProblem('https://localhost/cb', 'web')).toMatch(/loopback/);
    expect(redirectUriProblem('https://app.example/cb#x', 'web')).toMatch(/fragment/);
    expect(redirectUriProblem('http://127.0.0.1/cb', 'native')).toBeNull();
    expect(redirectUriProblem('http://pi.local/cb', 'native')).toMatch(/loopback/);
    expect(redirectUriProblem('com.example.app:/cb', 'native')).toBeNull();
    expect(redirectUriProblem('http://user@127.0.0.1/cb', 'native')).toMatch(/user information/);
  });
});

describe('lockout', () => {
  test('locks after max failures for a fixed time, per identity and IP', () => {
    let now = 1_000_000;
    const l = createLockout(
      { maxFailures: 3, windowMs: 60_000, lockoutMs: 30_000, maxTracked: 100 },
      () => now,
    );
    expect(l.fail('a@x', '1.1.1.1')).toBe(false);
    expect(l.fail('A@x', '1.1.1.1')).toBe(false);
    expect(l.fail('a@x', '1.1.1.1')).toBe(true);
    expect(l.remainingMs('a@x', '1.1.1.1')).toBe(30_000);
    expect(l.remainingMs('a@x', '2.2.2.2')).toBe(0);
    now += 10_000;
    expect(l.fail('a@x', '1.1.1.1')).toBe(false); // deadline not extended
    expect(l.remainingMs('a@x', '1.1.1.1')).toBe(20_000);
    now += 20_001;
    expect(l.remainingMs('a@x', '1.1.1.1')).toBe(0);
  });
  test('tracking stays bounded', () => {
    const l = createLockout({ maxFailures: 5, windowMs: 60_000, lockoutMs: 1, maxTracked: 50 });
    for (let i = 0; i < 500; i++) l.fail(`u${i}`, 'ip');
    expect(l.size()).toBeLessThanOrEqual(51);
  });
});

describe('signing keys and access tokens', () => {
  test('key file is created with mode 0600 and reloaded with the same kid', async () => {
    const dir = tempDir();
    const a = await openKeyRing(dir, 900);
    expect(statSync(path.join(dir, 'signing-keys.json')).mode & 0o777).toBe(0o600);
    const b = await openKeyRing(dir, 900);
    expect(b.current().kid).toBe(a.current().kid);
    expect(a.jwks().keys[0]).not.toHaveProperty('d');
  });

  test('rotation keeps the previous public key until its tokens expired', async () => {
    const dir = tempDir();
    const ring = await openKeyRing(dir, 900);
    const signer = createTokenSigner(ring, () => 'https://as.example');
    const old = await signer.mint({ sub: 'u', aud: 'urn:r', clientId: 'c', scopes: ['a'], ttlSec: 60 });
    const oldKid = ring.current().kid;
    await ring.rotate();
    expect(ring.current().kid).not.toBe(oldKid);
    const ecKids = ring
      .jwks()
      .keys.filter((k) => k.alg === 'ES256')
      .map((k) => k.kid);
    expect(ecKids).toEqual([ring.current().kid, oldKid]);
    expect(await signer.verify(old.token)).toMatchObject({ sub: 'u', aud: 'urn:r', scope: 'a' });
    const fresh = await signer.mint({ sub: 'u', aud: 'urn:r', clientId: 'c', scopes: [], ttlSec: 60 });
    expect(decodeProtectedHeader(fresh.token)).toMatchObject({
      typ: 'at+jwt',
      alg: 'ES256',
      kid: ring.current().kid,
    });
    // Nothing to drop while the old tokens may still be alive.
    expect(await ring.prune()).toBe(false);
    // With a zero max TTL, a reload drops the retired key.
    const reloaded = await openKeyRing(dir, 0);
    expect(reloaded.all().map((k) => k.kid)).toEqual([ring.current().kid, ring.currentFor('RS256').kid]);
  });

  test('a key file written before RS256 existed gets an RS256 key on open; the ES256 key and secret stay', async () => {
    const dir = tempDir();
    const first = await openKeyRing(dir, 900);
    const file = JSON.parse(readFileSync(path.join(dir, 'signing-keys.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    delete file.rsa_keys;
    writeFileSync(path.join(dir, 'signing-keys.json'), JSON.stringify(file));
    const again = await openKeyRing(dir, 900);
    expect(again.current().kid).toBe(first.current().kid);
    expect(again.hmacSecret.equals(first.hmacSecret)).toBe(true);
    expect(again.currentFor('RS256')).toMatchObject({ alg: 'RS256', status: 'current' });
    expect(again.jwks().keys.map((k) => k.kty)).toEqual(['EC', 'RSA']);
    // Persisted: a third open finds the same RSA key.
    expect((await openKeyRing(dir, 900)).currentFor('RS256').kid).toBe(again.currentFor('RS256').kid);
  });

  test('RS256 ID tokens verify with the published key; an RS256 token posing as an access token is refused', async () => {
    const ring = await openKeyRing(tempDir(), 900);
    const signer = createTokenSigner(ring, () => 'https://as.example');
    const accessToken = 'at';
    const idToken = await signer.idToken({
      sub: 'u',
      clientId: 'c',
      ttlSec: 60,
      authTime: 1,
      accessToken,
      alg: 'RS256',
    });
    const rsa = ring.currentFor('RS256');
    const { protectedHeader } = await compactVerify(idToken, rsa.publicKey);
    expect(protectedHeader).toMatchObject({ alg: 'RS256', kid: rsa.kid, typ: 'JWT' });
    const es = await signer.idToken({
      sub: 'u',
      clientId: 'c',
      ttlSec: 60,
      authTime: 1,
      accessToken,
      alg: 'ES256',
    });
    expect(decodeProtectedHeader(es)).toMatchObject({ alg: 'ES256', kid: ring.current().kid });
    // A well-formed access token signed with the RSA key (which only ever signs ID tokens) is refused.
    const now = Math.floor(Date.now() / 1000);
    const forged = await new SignJWT({
      sub: 'u',
      aud: 'urn:r',
      client_id: 'c',
      jti: 'j',
      scope: 'a',
      iat: now,
      exp: now + 60,
      iss: 'https://as.example',
    })
      .setProtectedHeader({ alg: 'RS256', kid: rsa.kid, typ: 'at+jwt' })
      .sign(rsa.privateKey);
    expect(await signer.verify(forged)).toBeNull();
  });

  test('verification refuses tampering, another issuer, another typ and expiry', async () => {
    const ring = await openKeyRing(tempDir(), 900);
    const signer = createTokenSigner(ring, () => 'https://as.example');
    const { token } = await signer.mint({ sub: 'u', aud: 'urn:r', clientId: 'c', scopes: ['a'], ttlSec: 60 });
    const [h, p, sig] = token.split('.');
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), scope: 'a b' }),
    ).toString('base64url');
    expect(await signer.verify(`${h}.${forged}.${sig}`)).toBeNull();
    expect(await createTokenSigner(ring, () => 'https://other.example').verify(token)).toBeNull();
    const key = ring.current();
    const idToken = await new SignJWT({ sub: 'u', aud: 'urn:r', client_id: 'c', jti: 'j', scope: '' })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'JWT' })
      .setIssuer('https://as.example')
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(key.privateKey);
    expect(await signer.verify(idToken)).toBeNull();
    const expired = await new SignJWT({ sub: 'u', aud: 'urn:r', client_id: 'c', jti: 'j', scope: '' })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' })
      .setIssuer('https://as.example')
      .setIssuedAt(Math.floor(Date.now() / 1000) - 120)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(key.privateKey);
    expect(await signer.verify(expired)).toBeNull();
    expect(await signer.verify('not-a-jwt')).toBeNull();
    // docs/auth.md#behaviour-where-the-spec-is-silent: a token without exp, iat or jti is refused at verification, however well signed.
    const now = Math.floor(Date.now() / 1000);
    const full = {
      iss: 'https://as.example',
      sub: 'u',
      aud: 'urn:r',
      client_id: 'c',
      jti: 'j',
      iat: now,
      exp: now + 60,
    };
    for (const drop of ['exp', 'iat', 'jti', 'aud', 'client_id'] as const) {
      const { [drop]: _gone, ...claims } = full;
      const t = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' })
        .sign(key.privateKey);
      expect(await signer.verify(t), drop).toBeNull();
    }
    const whole = await new SignJWT(full)
      .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' })
      .sign(key.privateKey);
    expect(await signer.verify(whole)).not.toBeNull();
    // RFC 8725 §3.1: an unsigned token naming our key is refused.
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt', kid: key.kid })).toString('base64url')}.${p}.`;
    expect(await signer.verify(none)).toBeNull();
  });
});

describe('secrets and passwords', () => {
  test('client secrets: keyed hash, constant-time compare', () => {
    const pepper = Buffer.alloc(32, 7);
    const stored = hashSecret(pepper, 's3cret');
    expect(verifySecret(pepper, 's3cret', stored)).toBe(true);
    expect(verifySecret(pepper, 's3cret!', stored)).toBe(false);
    expect(verifySecret(Buffer.alloc(32, 8), 's3cret', stored)).toBe(false);
  });
  test('argon2id PHC strings; unknown users verify against a dummy and fail', async () => {
    const h = await createPasswordHasher();
    const phc = await h.hash('correct horse');
    expect(phc).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await h.verify(phc, 'correct horse')).toBe(true);
    expect(await h.verify(phc, 'wrong')).toBe(false);
    expect(await h.verify(null, 'hearth-dummy-password')).toBe(false);
  });
});

describe('rate limiter', () => {
  test('burst, then one token per 1/rate seconds, per key', async () => {
    const { createRateLimiter } = await import('../../plugins/auth/domain/rate-limit.ts');
    let now = 0;
    const l = createRateLimiter({ ratePerSec: 10, burst: 3, maxKeys: 10 }, () => now);
    expect([l.take('a'), l.take('a'), l.take('a')]).toEqual([0, 0, 0]);
    expect(l.take('a')).toBe(1);
    expect(l.take('b')).toBe(0);
    now += 100;
    expect(l.take('a')).toBe(0);
    expect(l.take('a')).toBeGreaterThan(0);
  });
});

describe('issuance log lines', () => {
  test('round trip, and malformed or foreign lines are skipped', async () => {
    const { decodeIssuance, encodeIssuance, jtiOf } = await import(
      '../../plugins/auth/state/issuance-codec.ts'
    );
    const t = Date.UTC(2026, 0, 1);
    const i = {
      id: 'j1',
      jti: 'j1',
      subject_user_id: 'u1',
      client_id: 'c1',
      resource_id: 'r1',
      scopes: ['lights:read', 'a|b'],
      backend_kind: 'mint' as const,
      revocable: true,
      issued_at: new Date(t).toISOString(),
      expires_at: new Date(t + 900_000).toISOString(),
      agent_chain: [],
      consent_client_id: 'c1',
      parent_jti: '',
      family_id: 'f1',
      consent_grant_id: 'g1',
      t,
    };
    expect(decodeIssuance(encodeIssuance(i))).toEqual(i);
    const {
      family_id: _f,
      consent_grant_id: _g,
      ...machine
    } = { ...i, subject_user_id: '', consent_client_id: '' };
    expect(decodeIssuance(encodeIssuance(machine))).toEqual(machine);
    expect(decodeIssuance('garbage')).toBeNull();
    expect(decodeIssuance(`9\t${encodeIssuance(i).slice(2)}`)).toBeNull();
    // The registry indexes lines by jti without decoding them.
    expect(jtiOf(encodeIssuance(i))).toBe('j1');
    expect(jtiOf('garbage')).toBe('');
    expect(jtiOf(`9\t${encodeIssuance(i).slice(2)}`)).toBe('');
  });
});

describe('password rehash', () => {
  test('hashes with other parameters are flagged for an upgrade', async () => {
    const { hash } = await import('@node-rs/argon2');
    const h = await createPasswordHasher();
    expect(h.needsRehash(await h.hash('pw'))).toBe(false);
    const weak = await hash('pw', { algorithm: 2, memoryCost: 8192, timeCost: 1, parallelism: 1 });
    expect(h.needsRehash(weak)).toBe(true);
    expect(await h.verify(weak, 'pw')).toBe(true);
  });
});

describe('retired keys leave the JWKS once their tokens expired', () => {
  test('prune removes them without a restart', async () => {
    let now = Date.now();
    const ring = await openKeyRing(tempDir(), 900, () => now);
    const old = ring.current().kid;
    await ring.rotate();
    expect(ring.all().map((k) => k.kid)).toContain(old);
    now += 899_000;
    expect(await ring.prune()).toBe(false);
    now += 2_000;
    expect(await ring.prune()).toBe(true);
    expect(ring.jwks().keys.map((k) => k.kid)).toEqual([ring.current().kid, ring.currentFor('RS256').kid]);
  });
});

describe('signatures made together at the end of a loop turn', () => {
  test('every caller gets its own valid ES256 token; a failure rejects only its own caller', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const batch = new SignBatch();
    const ok = Array.from({ length: 40 }, (_, n) =>
      batch.sign({ typ: 'at+jwt', kid: 'k' }, { n }, privateKey),
    );
    // A public key cannot sign: this one job fails.
    const bad = expect(batch.sign({ typ: 'at+jwt' }, { n: -1 }, publicKey)).rejects.toThrow(/private/);
    const more = batch.sign({ typ: 'at+jwt' }, { n: 40 }, privateKey);
    const tokens = await Promise.all([...ok, more]);
    await bad;
    for (const [n, token] of tokens.entries()) {
      const { payload, protectedHeader } = await compactVerify(token, publicKey);
      expect(protectedHeader.alg).toBe('ES256');
      expect(JSON.parse(new TextDecoder().decode(payload))).toEqual({ n });
    }
    // A later turn starts a new batch.
    expect(await batch.sign({}, { n: 'again' }, privateKey)).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  });
});

describe('prototype-safe collections and cascade filters', () => {
  const names = ['constructor', '__proto__', 'toString', 'hasOwnProperty'];
  test('a lookup by an Object.prototype name finds only a record stored under it', () => {
    const d = emptyDict<{ id: string }>();
    for (const n of names) expect(own(d, n)).toBeUndefined();
    for (const n of names) d[n] = { id: n };
    for (const n of names) expect(own(d, n)).toEqual({ id: n });
    // Parsed JSON (own "__proto__" member) survives the copy and a round trip.
    const parsed = JSON.parse(JSON.stringify(d)) as unknown;
    const { dict, dropped } = toDict<{ id: string }>(parsed, (k, v) => (v as { id?: string }).id === k);
    expect(dropped).toEqual([]);
    expect(Object.keys(dict).sort()).toEqual([...names].sort());
    expect(own(dict, '__proto__')).toEqual({ id: '__proto__' });
  });
  test('a revoke filter with a missing or undefined value matches nothing', () => {
    expect(tokenFilter({})).toBeNull();
    expect(tokenFilter({ client_id: undefined as unknown as string })).toBeNull();
    expect(tokenFilter({ user_id: '' })).toBeNull();
    expect(tokenFilter({ client_id: 'a', consent_grant_id: undefined as unknown as string })).toBeNull();
    const match = tokenFilter({ client_id: 'a' })!;
    expect(match({ client_id: 'a', user_id: 'u' })).toBe(true);
    expect(match({ client_id: 'b', user_id: 'u' })).toBe(false);
  });
});

describe('revocation that races a token being signed', () => {
  test('a cascade that started after the mark covers the issuance; earlier ones and other tokens do not', () => {
    const memoryLog = <T>() => {
      const items: T[] = [];
      return {
        items,
        append: async (x: T) => {
          items.push(x);
        },
        prune: () => 0,
        flush: async () => {},
      };
    };
    const reg = createIssuanceRegistry(memoryLog<string>(), memoryLog<Revocation>(), 86_400_000);
    const issuance = (client_id: string) =>
      ({ client_id, subject_user_id: 'u', family_id: 'f' }) as unknown as Issuance;
    reg.noteCascade((i) => i.client_id === 'a');
    const mark = reg.cascadeMark();
    expect(reg.revokedSince(mark, issuance('a'))).toBe(false); // ran before signing began: it saw the token
    reg.noteCascade((i) => i.family_id === 'f' && i.client_id === 'b');
    expect(reg.revokedSince(mark, issuance('b'))).toBe(true);
    expect(reg.revokedSince(mark, issuance('c'))).toBe(false);
  });
});
