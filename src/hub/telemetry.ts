/**
 * What the server counts for its operators (`GET /metrics`): the hub, the store and the adapters
 * report events here, cheaply (plain counters on the hot path), and the metrics module
 * (src/metrics/prometheus.ts) turns them into Prometheus metrics at scrape time. Without
 * `--metrics-token` nothing reads them and the no-op below takes their place.
 */

export interface Telemetry {
  /** A message from a car (MP), or a record of a v3 vehicle rendered by the MQTT bridge, by its code. */
  carMessage(code: string): void;
  /** A command of the command service ended: its link (`mp`, `mqtt`, `none` when never sent) and outcome. */
  command(link: string, outcome: string, seconds: number): void;
  /** An HTTP request was answered. */
  httpRequest(group: string, status: number, seconds: number): void;
  /** The HTTP rate limiter refused a request. */
  httpThrottled(): void;
  /** The store committed a batch of buffered writes. */
  storeCommit(rows: number, seconds: number): void;
}

export const NO_TELEMETRY: Telemetry = {
  carMessage: () => undefined,
  command: () => undefined,
  httpRequest: () => undefined,
  httpThrottled: () => undefined,
  storeCommit: () => undefined,
};

/** The outcome label of a command's MP result code (docs/protocol/messages.md §5.1). */
export function commandOutcomeOf(result: number): string {
  return ['ok', 'failed', 'unsupported', 'unimplemented'][result] ?? 'failed';
}
