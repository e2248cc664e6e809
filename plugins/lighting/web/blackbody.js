// The colour of a white light: the CIE 1931 xy of a black body at a colour temperature, by the cubic
// approximation of the Planckian locus of Kim et al. (valid 1667–25000 K; outside, the nearest end). The
// hub computes the same in drivers/lighting/colour.ts (mirekToXy); a test keeps the two equal.

/** xy of a black body at `mirek` (1,000,000 / Kelvin), 4 decimals. */
export function blackBodyXy(mirek) {
  const k = Math.min(25000, Math.max(1667, 1e6 / mirek));
  const x =
    k <= 4000
      ? -0.2661239e9 / k ** 3 - 0.234358e6 / k ** 2 + 0.8776956e3 / k + 0.17991
      : -3.0258469e9 / k ** 3 + 2.1070379e6 / k ** 2 + 0.2226347e3 / k + 0.24039;
  const y =
    k <= 2222
      ? -1.1063814 * x ** 3 - 1.3481102 * x ** 2 + 2.18555832 * x - 0.20219683
      : k <= 4000
        ? -0.9549476 * x ** 3 - 1.37418593 * x ** 2 + 2.09137015 * x - 0.16748867
        : 3.081758 * x ** 3 - 5.8733867 * x ** 2 + 3.75112997 * x - 0.37001483;
  const round4 = (n) => Math.round(n * 10000) / 10000;
  return [round4(x), round4(y)];
}
