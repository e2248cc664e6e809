import { HearthError } from '../errors.ts';
import type { Collect, Counter, Histogram, Labels, MetricsApi } from './types.ts';

interface CounterEntry {
  help: string;
  values: Map<string, { labels: Labels; value: number }>;
}

interface CollectedEntry {
  help: string;
  type: 'gauge' | 'counter';
  collect: Collect;
}

interface HistogramSeries {
  labels: Labels;
  /** counts[i]: observations ≤ buckets[i] and > buckets[i-1] (made cumulative when rendered). */
  counts: number[];
  sum: number;
  count: number;
}

interface HistogramEntry {
  help: string;
  buckets: readonly number[];
  series: Map<string, HistogramSeries>;
}

const NAME = /^[a-z_][a-z0-9_]*$/;

/** Latency buckets in seconds: 0.5 ms to 10 s, fine where the hub's own paths live (well under 50 ms). */
export const LATENCY_BUCKETS: readonly number[] = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

const escapeLabel = (v: string) => v.replace(/["\\\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));

const labelText = (labels: Labels, extra?: string): string => {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  if (extra) parts.push(extra);
  return parts.length ? `{${parts.join(',')}}` : '';
};

/**
 * The map key of a label set: cheap to build on every observation (a site call makes three), unlike the
 * exposition text, which is built only when `/metrics` is scraped.
 */
const keyOf = (labels: Labels): string => {
  let key = '';
  for (const name in labels) key += `${name}\u0000${labels[name]}\u0001`;
  return key;
};

const checkName = (name: string) => {
  if (!NAME.test(name)) throw new HearthError('metric_bad_name', `bad metric name ${name}`);
};

/** Prometheus text exposition (format 0.0.4) of every metric of the hub. */
export class MetricsRegistry {
  private readonly counters = new Map<string, CounterEntry>();
  private readonly collected = new Map<string, CollectedEntry>();
  private readonly histograms = new Map<string, HistogramEntry>();

  forOwner(owner: string): MetricsApi {
    const prefix = `hearth_${owner.replace(/[^a-z0-9_]/g, '_')}_`;
    return {
      counter: (name, help) => this.counter(prefix + name, help),
      counterOf: (name, help, collect) => this.counterOf(prefix + name, help, collect),
      gauge: (name, help, collect) => this.gauge(prefix + name, help, collect),
      histogram: (name, help, buckets) => this.histogram(prefix + name, help, buckets),
    };
  }

  counter(name: string, help: string): Counter {
    checkName(name);
    const entry = this.counters.get(name) ?? { help, values: new Map() };
    this.counters.set(name, entry);
    return {
      inc(labels = {}, by = 1) {
        const key = keyOf(labels);
        const cur = entry.values.get(key);
        if (cur) cur.value += by;
        else entry.values.set(key, { labels, value: by });
      },
    };
  }

  /** A counter kept elsewhere, read at scrape time; `name` is without `_total`. */
  counterOf(name: string, help: string, collect: Collect): void {
    checkName(name);
    this.collected.set(`${name}_total`, { help, type: 'counter', collect });
  }

  gauge(name: string, help: string, collect: Collect): void {
    checkName(name);
    this.collected.set(name, { help, type: 'gauge', collect });
  }

  histogram(name: string, help: string, buckets: readonly number[] = LATENCY_BUCKETS): Histogram {
    checkName(name);
    const sorted = [...buckets].sort((a, b) => a - b);
    const entry = this.histograms.get(name) ?? { help, buckets: sorted, series: new Map() };
    this.histograms.set(name, entry);
    const bounds = entry.buckets;
    const seriesOf = (labels: Labels): HistogramSeries => {
      const key = keyOf(labels);
      let s = entry.series.get(key);
      if (!s) {
        s = { labels, counts: new Array(bounds.length + 1).fill(0), sum: 0, count: 0 };
        entry.series.set(key, s);
      }
      return s;
    };
    const record = (s: HistogramSeries, value: number) => {
      let i = 0;
      while (i < bounds.length && value > (bounds[i] as number)) i++;
      s.counts[i] = (s.counts[i] ?? 0) + 1;
      s.sum += value;
      s.count++;
    };
    return {
      observe(labels, value) {
        record(seriesOf(labels), value);
      },
      series(labels) {
        const s = seriesOf(labels);
        return (value) => record(s, value);
      },
    };
  }

  render(): string {
    const lines: string[] = [];
    for (const [name, c] of this.counters) {
      lines.push(`# HELP ${name}_total ${c.help}`, `# TYPE ${name}_total counter`);
      for (const v of c.values.values()) lines.push(`${name}_total${labelText(v.labels)} ${v.value}`);
    }
    for (const [name, h] of this.histograms) {
      lines.push(`# HELP ${name} ${h.help}`, `# TYPE ${name} histogram`);
      for (const s of h.series.values()) {
        let cumulative = 0;
        h.buckets.forEach((le, i) => {
          cumulative += s.counts[i] ?? 0;
          lines.push(`${name}_bucket${labelText(s.labels, `le="${le}"`)} ${cumulative}`);
        });
        lines.push(`${name}_bucket${labelText(s.labels, 'le="+Inf"')} ${s.count}`);
        lines.push(
          `${name}_sum${labelText(s.labels)} ${s.sum}`,
          `${name}_count${labelText(s.labels)} ${s.count}`,
        );
      }
    }
    for (const [name, g] of this.collected) {
      let value: ReturnType<Collect>;
      try {
        value = g.collect();
      } catch {
        continue;
      }
      lines.push(`# HELP ${name} ${g.help}`, `# TYPE ${name} ${g.type}`);
      if (typeof value === 'number') lines.push(`${name} ${value}`);
      else for (const v of value) lines.push(`${name}${labelText(v.labels)} ${v.value}`);
    }
    return `${lines.join('\n')}\n`;
  }
}
