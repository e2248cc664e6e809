/**
 * The largest distance that still scores at least `score` (an integer percentage) at a longer length of
 * `longer`: 100·(L − d) ≥ score·L. Integer arithmetic, so no rounding decides a match.
 */
export const allowedDistance = (longer: number, score: number): number =>
  Math.floor((longer * (100 - score)) / 100);
