import { describe, expect, test } from 'vitest';
import { createNonceSource } from '../../plugins/auth/domain/dpop-nonce.ts';
import { createReplayCache } from '../../plugins/auth/domain/replay-cache.ts';

describe('DPoP replay cache', () => {
  test('a value is refused while its window lasts, and accepted again after', () => {
    let now = 1_000_000;
    const cache = createReplayCache(10, () => now);
    expect(cache.add('a', now + 60_000)).toBe('fresh');
    expect(cache.add('a', now + 60_000)).toBe('replay');
    now += 60_001;
    expect(cache.add('a', now + 60_000)).toBe('fresh');
  });

  test('bounded: when full of live entries a new value is refused (never an old one forgotten); expired ones make room', () => {
    let now = 1_000_000;
    const cache = createReplayCache(1000, () => now);
    for (let i = 0; i < 1000; i++) expect(cache.add(`j${i}`, now + 60_000)).toBe('fresh');
    expect(cache.add('one-more', now + 60_000)).toBe('full');
    expect(cache.add('j0', now + 60_000)).toBe('replay');
    expect(cache.size()).toBe(1000);
    now += 60_001;
    expect(cache.add('one-more', now + 60_000)).toBe('fresh');
    expect(cache.size()).toBe(1);
  });

  test('entries out of time order are swept once the cache is full', () => {
    let now = 1_000_000;
    const cache = createReplayCache(1000, () => now);
    expect(cache.add('long', now + 600_000)).toBe('fresh');
    for (let i = 0; i < 999; i++) cache.add(`j${i}`, now + 1_000);
    now += 2_000;
    // The head entry is still live, so the cheap head sweep stops at once; the full sweep frees the rest.
    expect(cache.add('next', now + 1_000)).toBe('fresh');
    expect(cache.size()).toBe(2);
  });

  test('an ID-JAG jti a year ahead takes no slot: entries beyond the window cap are refused, so the cache empties within it', () => {
    let now = 1_000_000;
    const cache = createReplayCache(3, () => now, 330_000);
    expect(cache.add('year', now + 365 * 24 * 3600_000)).toBe('too_long');
    expect(cache.size()).toBe(0);
    for (const j of ['a', 'b', 'c']) expect(cache.add(j, now + 330_000)).toBe('fresh');
    expect(cache.add('d', now + 300_000)).toBe('full');
    now += 330_001;
    expect(cache.add('d', now + 300_000)).toBe('fresh');
  });
});

describe('DPoP nonces', () => {
  const secret = Buffer.alloc(32, 7);

  test('valid until their lifetime ends; a new one is minted past half of it', () => {
    let now = 1_700_000_000_000;
    const nonces = createNonceSource(secret, 60, () => now);
    const n1 = nonces.current();
    expect(nonces.valid(n1)).toBe(true);
    now += 20_000;
    expect(nonces.current()).toBe(n1);
    now += 15_000; // 35 s: past half the lifetime
    const n2 = nonces.current();
    expect(n2).not.toBe(n1);
    expect(nonces.valid(n1)).toBe(true);
    now += 26_000; // 61 s after n1
    expect(nonces.valid(n1)).toBe(false);
    expect(nonces.valid(n2)).toBe(true);
  });

  test('a nonce from another secret, a tampered one or garbage is refused', () => {
    const now = () => 1_700_000_000_000;
    const ours = createNonceSource(secret, 60, now);
    const theirs = createNonceSource(Buffer.alloc(32, 8), 60, now);
    expect(ours.valid(theirs.current())).toBe(false);
    const n = ours.current();
    const tampered = `${n.slice(0, 5)}${n[5] === 'A' ? 'B' : 'A'}${n.slice(6)}`;
    expect(ours.valid(tampered)).toBe(false);
    expect(ours.valid('')).toBe(false);
    expect(ours.valid('x'.repeat(30))).toBe(false);
    expect(ours.valid('é'.repeat(30))).toBe(false);
  });
});
