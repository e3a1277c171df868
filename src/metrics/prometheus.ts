/**
 * The Prometheus side of the server's telemetry (`GET /metrics`, served with `--metrics-token`):
 * one prom-client registry per server with the process metrics and vts's own (src/metrics/catalog.ts).
 *
 * Cheap on the hot path: a car message or an HTTP request adds to a plain number in a map (no label
 * hashing, no per-vehicle label); the counters are filled from those numbers, and the gauges read
 * from the hub, the store and the login guard, only when Prometheus scrapes.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { CHANNELS } from '../core/push/channels.js';
import type { Telemetry } from '../hub/telemetry.js';
import { METRICS, type MetricSpec } from './catalog.js';
import { cheaperProcessCounts } from './process-counts.js';

/** What the scrape-time metrics read. */
export interface MetricSources {
  /** Connections this node holds now, by kind. */
  connections(): { car: number; app: number; batch: number; mqttModule: number; apiSession: number };
  /** Open push deliveries by channel (the store's outbox). */
  outbox(): Promise<Map<string, number>>;
  /** The login guard's running totals. */
  logins(): { failures: number; throttled: number };
}

const CONNECTION_KINDS = [
  ['car', 'car'],
  ['app', 'app'],
  ['batch', 'batch'],
  ['mqtt_module', 'mqttModule'],
  ['api_session', 'apiSession'],
] as const;

/** A car message code as a label: a letter, else `other` (the label set stays small). */
const codeLabel = (code: string): string => (/^[A-Za-z]$/.test(code) ? code : 'other');

/** Counts under a label key, filled into a counter at scrape time. */
class Tally {
  readonly counts = new Map<string, number>();
  add(key: string, n = 1): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + n);
  }
}

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export class ServerMetrics implements Telemetry {
  readonly registry = new Registry();
  private sources: MetricSources | null = null;
  private readonly carMessages = new Tally();
  private readonly commandCounts = new Tally();
  private readonly httpCounts = new Tally();
  private httpRefused = 0;
  private readonly commandDuration: Histogram<'link'>;
  private readonly httpDuration: Histogram<'group'>;
  private readonly httpDurationOf = new Map<string, { observe(v: number): void }>();
  private readonly storeBatch: Histogram;
  private readonly commitDuration: Histogram;

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    cheaperProcessCounts(this.registry);
    const spec = (m: MetricSpec) => ({ name: m.name, help: m.help, labelNames: [...m.labels], registers });
    const tallied = (m: MetricSpec, tally: Tally, labels: (key: string) => Record<string, string>): void => {
      new Counter({
        ...spec(m),
        collect() {
          this.reset();
          for (const [key, n] of tally.counts) this.inc(labels(key), n);
        },
      });
    };
    tallied(METRICS.carMessages, this.carMessages, (code) => ({ code }));
    tallied(METRICS.commands, this.commandCounts, (key) => {
      const [link = '', outcome = ''] = key.split(' ');
      return { link, outcome };
    });
    tallied(METRICS.httpRequests, this.httpCounts, (key) => {
      const [group = '', status = ''] = key.split(' ');
      return { group, status };
    });
    this.commandDuration = new Histogram({ ...spec(METRICS.commandDuration), buckets: [...METRICS.commandDuration.buckets] });
    this.httpDuration = new Histogram({ ...spec(METRICS.httpDuration), buckets: [...METRICS.httpDuration.buckets] });
    this.storeBatch = new Histogram({ ...spec(METRICS.storeBatch), buckets: [...METRICS.storeBatch.buckets] });
    this.commitDuration = new Histogram({ ...spec(METRICS.storeCommit), buckets: [...METRICS.storeCommit.buckets] });

    const sources = (): MetricSources | null => this.sources;
    const httpRefused = (): number => this.httpRefused;
    new Gauge({
      ...spec(METRICS.connections),
      collect() {
        const n = sources()?.connections();
        for (const [label, key] of CONNECTION_KINDS) this.set({ kind: label }, n ? n[key] : 0);
      },
    });
    // a database that does not answer must not fail the whole scrape: the last values stay
    let lastOpen = new Map<string, number>();
    new Gauge({
      ...spec(METRICS.pushOutbox),
      // every node (and worker) reads the same outbox: aggregated, it is one value, not a sum
      aggregator: 'first',
      async collect() {
        const from = sources();
        try {
          if (from) lastOpen = await from.outbox();
        } catch {
          // kept: /ready says that the store is down
        }
        for (const channel of CHANNELS) this.set({ channel }, lastOpen.get(channel) ?? 0);
      },
    });
    new Counter({
      ...spec(METRICS.loginFailures),
      collect() {
        this.reset();
        this.inc(sources()?.logins().failures ?? 0);
      },
    });
    new Counter({
      ...spec(METRICS.throttled),
      collect() {
        this.reset();
        this.inc({ kind: 'login' }, sources()?.logins().throttled ?? 0);
        this.inc({ kind: 'http_rate' }, httpRefused());
      },
    });
  }

  /** Where the scrape-time metrics come from (set once the server's parts exist). */
  attach(sources: MetricSources): void {
    this.sources = sources;
  }

  /** The Prometheus text of every metric. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  // --- Telemetry ---

  carMessage(code: string): void {
    this.carMessages.add(codeLabel(code));
  }

  command(link: string, outcome: string, seconds: number): void {
    this.commandCounts.add(`${link} ${outcome}`);
    this.commandDuration.observe({ link }, seconds);
  }

  httpRequest(group: string, status: number, seconds: number): void {
    this.httpCounts.add(`${group} ${status}`);
    let h = this.httpDurationOf.get(group);
    if (!h) this.httpDurationOf.set(group, (h = this.httpDuration.labels({ group })));
    h.observe(seconds);
  }

  httpThrottled(): void {
    this.httpRefused++;
  }

  storeCommit(rows: number, seconds: number): void {
    this.storeBatch.observe(rows);
    this.commitDuration.observe(seconds);
  }
}
