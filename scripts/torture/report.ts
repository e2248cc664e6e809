/** What each torture part returns, and the table the runner prints. */
export interface PartResult {
  area: string;
  trials: number;
  failures: number;
  /** Measured figures, one short phrase each. */
  figures: string[];
  /** One line per failure kind: what was sent and what came back. */
  findings: string[];
  /** Set when the part did not run here, with the reason. */
  skipped?: string;
}

export function newResult(area: string): PartResult {
  return { area, trials: 0, failures: 0, figures: [], findings: [] };
}

/** Counts a failure; the first few of each kind are kept as findings. */
export function fail(r: PartResult, kind: string, detail: string): void {
  r.failures += 1;
  const same = r.findings.filter((f) => f.startsWith(`${kind}:`)).length;
  if (same < 5) r.findings.push(`${kind}: ${detail}`);
  else if (same === 5) r.findings.push(`${kind}: … (more of this kind)`);
}

export function table(results: PartResult[]): string {
  const rows = results.map((r) => [
    r.area,
    r.skipped ? '-' : String(r.trials),
    r.skipped ? '-' : String(r.failures),
    r.skipped ? `skipped: ${r.skipped}` : r.figures.join('; '),
  ]);
  const head = ['area', 'trials', 'failures', 'figures'];
  const width = head.map((h, i) =>
    Math.max(h.length, ...rows.map((r) => (i === 3 ? 0 : (r[i] as string).length))),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 3 ? c : c.padEnd(width[i] as number))).join(' | ')} |`;
  return [line(head), line(width.map((w, i) => (i === 3 ? '---' : '-'.repeat(w)))), ...rows.map(line)].join(
    '\n',
  );
}

export const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};
