/**
 * Next free sender id ("subdef") for radio vendors that allocate ids from a gateway's Base ID.
 * EnOcean: ids derived from a Base ID span 128 ids (base .. base+127); docs/lighting.md#sender-ids-subdef notes the original
 * allocator's +0xff range was a bug, so this one stops at +127.
 */
export const SUBDEF_RANGE = 128;

export function parseSubdef(s: string): number | null {
  const parts = s.toLowerCase().split(':');
  if (parts.length !== 4 || !parts.every((p) => /^[0-9a-f]{2}$/.test(p))) return null;
  return Number.parseInt(parts.join(''), 16);
}

export function formatSubdef(n: number): string {
  const hex = (n >>> 0).toString(16).padStart(8, '0');
  return hex.match(/../g)!.join(':');
}

/** Smallest id in [base, base+127] not in `used`, or null when the range is full. */
export function nextSubdef(base: string, used: Iterable<string | null | undefined>): string | null {
  const start = parseSubdef(base);
  if (start === null) throw new Error(`invalid subdef base ${base}`);
  const taken = new Set<number>();
  for (const u of used) {
    const n = u ? parseSubdef(u) : null;
    if (n !== null) taken.add(n);
  }
  for (let n = start; n < start + SUBDEF_RANGE && n <= 0xffffffff; n++) {
    if (!taken.has(n)) return formatSubdef(n);
  }
  return null;
}
