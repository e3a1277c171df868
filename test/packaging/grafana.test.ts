/**
 * packaging/grafana/vts-dashboard.json uses the metrics vts has (src/metrics/catalog.ts): every
 * metric its PromQL names is in the catalogue (a histogram as its _bucket, _sum or _count
 * series), every label it groups or filters by is one of that metric's, quantiles are taken over
 * buckets summed by `le`, and every metric of the catalogue is on a panel.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { METRICS, PROCESS_METRICS, metricNames } from '../../src/metrics/catalog.js';
import { ROOT } from './parsers.js';

interface Target {
  expr?: string;
  datasource?: { type?: string; uid?: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { type?: string; uid?: string };
  gridPos?: { h: number; w: number; x: number; y: number };
  targets?: Target[];
  panels?: Panel[];
}
interface Dashboard {
  title: string;
  uid: string;
  schemaVersion: number;
  panels: Panel[];
  templating: { list: { name: string; type: string; query: unknown }[] };
}

const dashboard = JSON.parse(readFileSync(join(ROOT, 'packaging/grafana/vts-dashboard.json'), 'utf8')) as Dashboard;
const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
const queries = panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr ?? '' })));

const HISTOGRAM_SERIES = ['_bucket', '_sum', '_count'];
/** Labels Prometheus adds to every series it scrapes. */
const TARGET_LABELS = ['instance', 'job'];
const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset', 'inf', 'nan']);

const specs = Object.values(METRICS);
const histograms = new Map<string, (typeof specs)[number]>(specs.filter((m) => m.type === 'histogram').map((m) => [m.name, m]));

/** The catalogue's name of a series: a histogram's series without its suffix. */
function baseName(series: string): string {
  for (const suffix of HISTOGRAM_SERIES) {
    const base = series.slice(0, -suffix.length);
    if (series.endsWith(suffix) && histograms.has(base)) return base;
  }
  return series;
}

/**
 * The metric names of a PromQL expression: identifiers that are not functions, keywords, label
 * names (in `{…}` or `by (…)`), durations (`[…]`) or strings.
 */
function metricsOf(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  return [...bare.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*(?!\s*\()/g)]
    .filter((m) => {
      // a whole identifier: not a function name the lookahead backed off from, not a number's exponent
      const before = bare[m.index - 1] ?? ' ';
      const after = bare[m.index + m[0].length] ?? ' ';
      return !/[A-Za-z0-9_:.$]/.test(before) && !/[A-Za-z0-9_:]/.test(after);
    })
    .map((m) => m[0])
    .filter((name) => !KEYWORDS.has(name.toLowerCase()));
}

test('the dashboard parses, has panels and takes its Prometheus as a variable', () => {
  assert.ok(dashboard.title && dashboard.uid, 'title and uid');
  assert.ok(dashboard.schemaVersion >= 36, `schemaVersion ${dashboard.schemaVersion}`);
  const ds = dashboard.templating.list.find((v) => v.type === 'datasource');
  assert.ok(ds && ds.query === 'prometheus', 'a datasource variable of type prometheus');
  const withQueries = panels.filter((p) => p.targets?.length);
  assert.ok(withQueries.length >= 10, `${withQueries.length} panels with queries`);
  const ids = panels.map((p) => p.id);
  assert.equal(new Set(ids).size, ids.length, 'panel ids are unique');
  for (const p of withQueries) {
    assert.equal(p.datasource?.uid, `\${${ds.name}}`, `${p.title}: the datasource is the variable`);
    assert.ok(p.gridPos, `${p.title}: has a place on the grid`);
  }
});

test('the metric extraction sees what it must', () => {
  assert.deepEqual(metricsOf('histogram_quantile(0.95, sum by (group, le) (rate(a_bucket{instance=~"$instance"}[$__rate_interval])))'), ['a_bucket']);
  assert.deepEqual(metricsOf('sum(rate(x_sum[5m])) / sum(rate(x_count[5m]))'), ['x_sum', 'x_count']);
  assert.deepEqual(metricsOf('nodejs_eventloop_lag_p99_seconds > 1e3 or vector(0)'), ['nodejs_eventloop_lag_p99_seconds']);
});

test('every metric of a query is in the catalogue, a histogram as its _bucket, _sum or _count', () => {
  const known = new Set(metricNames());
  assert.ok(queries.length > 0);
  for (const q of queries) {
    const names = metricsOf(q.expr);
    assert.ok(names.length > 0, `${q.panel}: ${q.expr} names a metric`);
    for (const name of names) {
      assert.ok(!histograms.has(name), `${q.panel}: ${name} is a histogram: use ${name}_bucket, _sum or _count`);
      assert.ok(known.has(baseName(name)), `${q.panel}: ${name} is a metric of src/metrics/catalog.ts`);
    }
  }
});

test('labels grouped or filtered by are the metric\'s; quantiles are over buckets summed by le', () => {
  const labelsOf = new Map<string, readonly string[]>(specs.map((m) => [m.name, m.labels]));
  for (const q of queries) {
    const allowed = new Set([...TARGET_LABELS, ...metricsOf(q.expr).flatMap((n) => labelsOf.get(baseName(n)) ?? [])]);
    const bucket = metricsOf(q.expr).some((n) => n.endsWith('_bucket'));
    if (bucket) allowed.add('le');
    const grouped = [...q.expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)].flatMap((m) => m[1]!.split(',').map((s) => s.trim()));
    const filtered = [...q.expr.matchAll(/\{([^}]*)\}/g)].flatMap((m) => [...m[1]!.matchAll(/(\w+)\s*(?:=~|!~|!=|=)/g)].map((x) => x[1]!));
    for (const label of [...grouped, ...filtered]) assert.ok(allowed.has(label), `${q.panel}: label ${label} of ${q.expr}`);
    if (bucket) {
      assert.match(q.expr, /^histogram_quantile\(0?\.\d+,/, `${q.panel}: a _bucket series is read through histogram_quantile`);
      assert.ok(grouped.includes('le'), `${q.panel}: the buckets are summed by le`);
    }
  }
});

test('every metric of the catalogue (and the process metrics) is on a panel', () => {
  const used = new Set(queries.flatMap((q) => metricsOf(q.expr).map(baseName)));
  for (const m of specs) assert.ok(used.has(m.name), `${m.name} is on a panel`);
  for (const name of PROCESS_METRICS) assert.ok(used.has(name), `${name} is on a panel`);
});
