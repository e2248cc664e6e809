export type Labels = Record<string, string>;

export interface Counter {
  inc(labels?: Labels, by?: number): void;
}

export interface Histogram {
  /** Records one observation (seconds for durations, as Prometheus names them). */
  observe(labels: Labels, value: number): void;
  /** One label set's series, to record into without building its key each time (per-request paths). */
  series(labels: Labels): (value: number) => void;
}

/** A value read when `/metrics` is scraped: one number, or one per label set. */
export type Collect = () => number | Array<{ labels: Labels; value: number }>;

export interface MetricsApi {
  /** A monotonically increasing counter, exported as `hearth_<owner>_<name>_total`. */
  counter(name: string, help: string): Counter;
  /**
   * A counter whose running total the plugin already keeps (cache hits, dropped lines): read at scrape
   * time and exported as a counter, `hearth_<owner>_<name>_total`. The value must never go down.
   */
  counterOf(name: string, help: string, collect: Collect): void;
  /** A gauge whose value is read when `/metrics` is scraped. */
  gauge(name: string, help: string, collect: Collect): void;
  /** A histogram, `hearth_<owner>_<name>` with `_bucket`, `_sum` and `_count`; `buckets` are upper bounds. */
  histogram(name: string, help: string, buckets?: readonly number[]): Histogram;
}
