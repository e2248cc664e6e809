export type Labels = Record<string, string>;

export interface Counter {
  inc(labels?: Labels, by?: number): void;
}

export interface MetricsApi {
  /** A monotonically increasing counter, exported as `hearth_<name>_total`. */
  counter(name: string, help: string): Counter;
  /** A gauge whose value is read when `/metrics` is scraped. */
  gauge(name: string, help: string, collect: () => number | Array<{ labels: Labels; value: number }>): void;
}
