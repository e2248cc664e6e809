import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashSecret, randomToken } from '../../plugins/auth/domain/secrets.ts';
import { VerifiedSecrets } from '../../plugins/auth/domain/verified-secrets.ts';

/** The per-process cache of verified client secrets, on its own (the hub-level tests are in token-direct-route). */
describe('verified client secrets', () => {
  const pepper = randomBytes(32);
  const stored = (secret: string) => hashSecret(pepper, secret);

  it('accepts the right secret, again from memory, and refuses any other', () => {
    const v = new VerifiedSecrets(pepper);
    const secret = randomToken();
    expect(v.verify('a', secret, stored(secret))).toBe(true);
    expect(v.size).toBe(1);
    expect(v.verify('a', secret, stored(secret))).toBe(true);
    expect(v.verify('a', `${secret}x`, stored(secret))).toBe(false);
    expect(v.verify('a', '', stored(secret))).toBe(false);
  });

  it('refuses a remembered secret at once when the stored hash changed (rotation)', () => {
    const v = new VerifiedSecrets(pepper);
    const old = randomToken();
    const fresh = randomToken();
    expect(v.verify('a', old, stored(old))).toBe(true);
    expect(v.verify('a', old, stored(fresh))).toBe(false);
    expect(v.verify('a', fresh, stored(fresh))).toBe(true);
    // Rotating back is a new verification, not a memory of the old entry.
    expect(v.verify('a', fresh, stored(old))).toBe(false);
  });

  it('never lets one client pass with another client’s remembered secret', () => {
    const v = new VerifiedSecrets(pepper);
    const a = randomToken();
    const b = randomToken();
    expect(v.verify('a', a, stored(a))).toBe(true);
    expect(v.verify('b', a, stored(b))).toBe(false);
    expect(v.verify('b', b, stored(b))).toBe(true);
  });

  it('forgets a client, and starts over rather than grow past its bound', () => {
    const v = new VerifiedSecrets(pepper, 2);
    const s = [randomToken(), randomToken(), randomToken()];
    expect(v.verify('a', s[0]!, stored(s[0]!))).toBe(true);
    v.forget('a');
    expect(v.size).toBe(0);
    expect(v.verify('a', s[0]!, stored(s[0]!))).toBe(true);
    expect(v.verify('b', s[1]!, stored(s[1]!))).toBe(true);
    expect(v.verify('c', s[2]!, stored(s[2]!))).toBe(true);
    expect(v.size).toBeLessThanOrEqual(2);
    // Whatever was dropped still verifies (by the keyed hash), and a wrong secret still fails.
    expect(v.verify('a', s[0]!, stored(s[0]!))).toBe(true);
    expect(v.verify('a', s[1]!, stored(s[0]!))).toBe(false);
  });
});
