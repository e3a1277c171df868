/**
 * Every metric of vts's own (`GET /metrics`, docs/operations.md "Metrics"): name, type, help and labels, in
 * one place, read by the Prometheus registry (src/metrics/prometheus.ts), the list in docs/operations.md and the
 * Grafana dashboard's test. The process metrics of prom-client (`process_*`, `nodejs_*`, the
 * event-loop delay among them) come on top of these.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram';

export interface MetricSpec {
  readonly name: string;
  readonly type: MetricType;
  readonly help: string;
  readonly labels: readonly string[];
  /** Histograms: the upper bounds of the buckets. */
  readonly buckets?: readonly number[];
}

/** Seconds: from half a millisecond (a cached read) to a minute (a command that waits on a car). */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const BATCH_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000];

export const METRICS = {
  connections: {
    name: 'vts_connections',
    type: 'gauge',
    help: 'Connections open now, by kind: car, app and batch (MP), mqtt_module (v3 vehicles), api_session (HTTP API sessions)',
    labels: ['kind'],
  },
  carMessages: {
    name: 'vts_car_messages_received_total',
    type: 'counter',
    help: 'Messages received from cars over MP and the MQTT bridge, by message code (S, D, L, …; other codes as "other")',
    labels: ['code'],
  },
  commands: {
    name: 'vts_commands_total',
    type: 'counter',
    help: 'Commands the command service ran, by link (mp, mqtt, none when never sent) and outcome',
    labels: ['link', 'outcome'],
  },
  commandDuration: {
    name: 'vts_command_duration_seconds',
    type: 'histogram',
    help: 'Time from a command being asked until its answer (or failure), by link',
    labels: ['link'],
    buckets: LATENCY_BUCKETS,
  },
  httpRequests: {
    name: 'vts_http_requests_total',
    type: 'counter',
    help: 'HTTP requests answered, by route group and status code',
    labels: ['group', 'status'],
  },
  httpDuration: {
    name: 'vts_http_request_duration_seconds',
    type: 'histogram',
    help: 'Time to answer an HTTP request, by route group',
    labels: ['group'],
    buckets: LATENCY_BUCKETS,
  },
  storeBatch: {
    name: 'vts_store_batch_rows',
    type: 'histogram',
    help: 'Writes the store commits together in one transaction (write-behind batch size)',
    labels: [],
    buckets: BATCH_BUCKETS,
  },
  storeCommit: {
    name: 'vts_store_commit_duration_seconds',
    type: 'histogram',
    help: 'Time to commit one write-behind batch to the database',
    labels: [],
    buckets: LATENCY_BUCKETS,
  },
  pushOutbox: {
    name: 'vts_push_outbox',
    type: 'gauge',
    help: 'Push deliveries not yet done (pending or being retried), by provider channel',
    labels: ['channel'],
  },
  loginFailures: {
    name: 'vts_login_failures_total',
    type: 'counter',
    help: 'Failed secret checks on every path (a wrong password, API token, car password or MP login digest)',
    labels: [],
  },
  throttled: {
    name: 'vts_throttled_total',
    type: 'counter',
    help: 'Requests refused by a limit: kind login (the login throttle) or http_rate (the HTTP rate limiter)',
    labels: ['kind'],
  },
} as const satisfies Record<string, MetricSpec>;

export type MetricKey = keyof typeof METRICS;

/** The process metrics of prom-client that docs/operations.md and the dashboard rely on. */
export const PROCESS_METRICS = [
  'process_cpu_seconds_total',
  'process_resident_memory_bytes',
  'process_open_fds',
  'nodejs_eventloop_lag_p50_seconds',
  'nodejs_eventloop_lag_p99_seconds',
  'nodejs_heap_size_used_bytes',
] as const;

/** Every metric name a scrape carries for sure: vts's own and the process metrics above. */
export function metricNames(): string[] {
  return [...Object.values(METRICS).map((m) => m.name), ...PROCESS_METRICS];
}
