/** `/metrics`: counters as counters, latency histograms, and process metrics under their standard names. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetricsRegistry } from '../../core/metrics/registry.ts';
import { startTestHub, type TestHub } from '../helpers/hub.ts';

/** The samples of one metric family, by label text (`{a="b"}` or ``). */
function samples(text: string, name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of text.matchAll(new RegExp(`^${name}(\\{[^}]*\\})? (\\S+)$`, 'gm'))) {
    out.set(m[1] ?? '', Number(m[2]));
  }
  return out;
}

describe('the metrics registry', () => {
  it('a histogram series bound once records into the same series as observe() with those labels', () => {
    const r = new MetricsRegistry();
    const h = r.histogram('bound_seconds', 'demo', [0.01, 0.1]);
    const record = h.series({ route: '/a', code: '2xx' });
    record(0.005);
    record(0.05);
    h.observe({ route: '/a', code: '2xx' }, 1);
    h.observe({ route: '/b', code: '2xx' }, 1);
    const text = r.render();
    expect(text).toContain('bound_seconds_bucket{route="/a",code="2xx",le="0.01"} 1');
    expect(text).toContain('bound_seconds_bucket{route="/a",code="2xx",le="0.1"} 2');
    expect(text).toContain('bound_seconds_count{route="/a",code="2xx"} 3');
    expect(text).toContain('bound_seconds_count{route="/b",code="2xx"} 1');
  });

  it('renders a histogram with cumulative buckets, +Inf equal to the count, and the sum', () => {
    const r = new MetricsRegistry();
    const h = r.histogram('demo_seconds', 'demo', [0.01, 0.1, 1]);
    for (const v of [0.005, 0.01, 0.05, 0.5, 7]) h.observe({ route: '/x' }, v);
    const text = r.render();
    expect(text).toContain('# TYPE demo_seconds histogram');
    const buckets = samples(text, 'demo_seconds_bucket');
    expect([...buckets.values()]).toEqual([2, 3, 4, 5]);
    expect([...buckets.keys()].at(-1)).toBe('{route="/x",le="+Inf"}');
    expect(samples(text, 'demo_seconds_count').get('{route="/x"}')).toBe(5);
    expect(samples(text, 'demo_seconds_sum').get('{route="/x"}')).toBeCloseTo(7.565);
  });

  it('exports a running total kept elsewhere as a counter, with _total', () => {
    const r = new MetricsRegistry();
    let hits = 0;
    r.forOwner('demo').counterOf('cache_hits', 'hits', () => hits);
    hits = 3;
    const text = r.render();
    expect(text).toContain('# TYPE hearth_demo_cache_hits_total counter');
    expect(text).toMatch(/^hearth_demo_cache_hits_total 3$/m);
  });
});

describe('/metrics on a running hub', () => {
  let t: TestHub;
  let sitekey: string;
  const scrape = async () => {
    const auth = Buffer.from(`metrics:${t.adminKey}`).toString('base64');
    const res = await fetch(`${t.adminUrl}/metrics`, { headers: { authorization: `Basic ${auth}` } });
    expect(res.status).toBe(200);
    return res.text();
  };

  beforeAll(async () => {
    t = await startTestHub({ plugins: ['lighting'] });
    const line = t.printed.find((l) => l.includes('/site/')) ?? '';
    sitekey = line.slice(line.lastIndexOf('/') + 1);
    expect(sitekey.length).toBeGreaterThan(20);
  });
  afterAll(() => t.stop());

  it('has the process metrics under the names Prometheus clients use', async () => {
    const text = await scrape();
    for (const name of [
      'process_cpu_seconds_total',
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'process_start_time_seconds',
      'process_open_fds',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_p99_seconds',
    ]) {
      expect(text, name).toMatch(new RegExp(`^${name} [0-9.e+-]+$`, 'm'));
    }
    expect(text).toContain('# TYPE process_cpu_seconds_total counter');
    expect(text).toMatch(/^nodejs_version_info\{version="v\d+\.\d+\.\d+",.*\} 1$/m);
    const started = Number(samples(text, 'process_start_time_seconds').get(''));
    expect(Math.abs(started - Date.now() / 1000)).toBeLessThan(3600);
  });

  it('times every site API request by route template, never by the path that carries the site key', async () => {
    for (let i = 0; i < 3; i++) expect((await fetch(`${t.url}/api/site/${sitekey}/light`)).status).toBe(200);
    expect((await fetch(`${t.url}/api/site/not-a-key/light`)).status).toBe(404);
    const text = await scrape();
    expect(text).toContain('# TYPE hearth_http_request_duration_seconds histogram');
    expect(text).not.toContain(sitekey);
    const counts = samples(text, 'hearth_http_request_duration_seconds_count');
    const ok = [...counts].find(
      ([labels]) =>
        labels.includes('method="GET"') && labels.includes('code="2xx"') && /route="[^"]*light"/.test(labels),
    );
    expect(ok?.[1]).toBe(3);
    expect(ok?.[0]).toContain('listener="main"');
  });
});

describe('the Grafana dashboard in docs/', () => {
  it('queries only metrics a hub with every plugin exposes', async () => {
    const file = path.join(import.meta.dirname, '../../docs/grafana-dashboard.json');
    const dash = JSON.parse(readFileSync(file, 'utf8')) as {
      panels: Array<{ targets: Array<{ expr: string }> }>;
    };
    const queried = new Set(
      dash.panels.flatMap((p) =>
        p.targets.flatMap((t) => t.expr.match(/\b(?:hearth|process|nodejs)_[a-z0-9_]+/g) ?? []),
      ),
    );
    expect(queried.size).toBeGreaterThan(15);
    const hub = await startTestHub({ plugins: ['lighting', 'auth', 'translation', 'mqtt-devices'] });
    try {
      const auth = Buffer.from(`metrics:${hub.adminKey}`).toString('base64');
      const text = await (
        await fetch(`${hub.adminUrl}/metrics`, { headers: { authorization: `Basic ${auth}` } })
      ).text();
      const families = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
      const missing = [...queried].filter((m) => !families.has(m.replace(/_(bucket|count|sum)$/, '')));
      expect(missing).toEqual([]);
    } finally {
      await hub.stop();
    }
  });
});
