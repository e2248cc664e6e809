import type { Counter, Labels, MetricsApi } from './types.ts';

interface CounterEntry {
  help: string;
  values: Map<string, { labels: Labels; value: number }>;
}

interface GaugeEntry {
  help: string;
  collect: () => number | Array<{ labels: Labels; value: number }>;
}

const NAME = /^[a-z_][a-z0-9_]*$/;

const labelText = (labels: Labels): string => {
  const parts = Object.entries(labels).map(
    ([k, v]) => `${k}="${v.replace(/["\\\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`))}"`,
  );
  return parts.length ? `{${parts.join(',')}}` : '';
};

/** Prometheus text exposition (format 0.0.4) of every counter and gauge of the hub. */
export class MetricsRegistry {
  private readonly counters = new Map<string, CounterEntry>();
  private readonly gauges = new Map<string, GaugeEntry>();

  forOwner(owner: string): MetricsApi {
    const prefix = `hearth_${owner.replace(/[^a-z0-9_]/g, '_')}_`;
    return {
      counter: (name, help) => this.counter(prefix + name, help),
      gauge: (name, help, collect) => this.gauge(prefix + name, help, collect),
    };
  }

  counter(name: string, help: string): Counter {
    if (!NAME.test(name)) throw new Error(`bad metric name ${name}`);
    const entry = this.counters.get(name) ?? { help, values: new Map() };
    this.counters.set(name, entry);
    return {
      inc(labels = {}, by = 1) {
        const key = labelText(labels);
        const cur = entry.values.get(key);
        if (cur) cur.value += by;
        else entry.values.set(key, { labels, value: by });
      },
    };
  }

  gauge(name: string, help: string, collect: GaugeEntry['collect']): void {
    if (!NAME.test(name)) throw new Error(`bad metric name ${name}`);
    this.gauges.set(name, { help, collect });
  }

  render(): string {
    const lines: string[] = [];
    for (const [name, c] of this.counters) {
      lines.push(`# HELP ${name}_total ${c.help}`, `# TYPE ${name}_total counter`);
      for (const v of c.values.values()) lines.push(`${name}_total${labelText(v.labels)} ${v.value}`);
    }
    for (const [name, g] of this.gauges) {
      lines.push(`# HELP ${name} ${g.help}`, `# TYPE ${name} gauge`);
      let value: ReturnType<GaugeEntry['collect']>;
      try {
        value = g.collect();
      } catch {
        continue;
      }
      if (typeof value === 'number') lines.push(`${name} ${value}`);
      else for (const v of value) lines.push(`${name}${labelText(v.labels)} ${v.value}`);
    }
    return `${lines.join('\n')}\n`;
  }
}
