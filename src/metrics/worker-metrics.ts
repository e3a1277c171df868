/**
 * Metrics of `vts serve --workers N`: a scrape reaches whichever worker the shared port hands it
 * to, so each worker answers `/metrics` with the metrics of all of them, summed by prom-client's
 * AggregatorRegistry in the primary (gauges of one shared thing, such as the push outbox, are
 * taken once: their `aggregator` says so). The worker asks the primary over the cluster's IPC
 * channel; the primary asks every worker for its registry and answers with the aggregate.
 */
import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { Logger } from 'pino';

interface MetricsRequest {
  vts: 'metrics?';
  id: number;
}

interface MetricsAnswer {
  vts: 'metrics';
  id: number;
  text?: string;
  error?: string;
}

/** How long a worker waits for the primary's aggregate before it answers with its own metrics. */
const ANSWER_TIMEOUT_MS = 8000;

const isRequest = (m: unknown): m is MetricsRequest => typeof m === 'object' && m !== null && (m as { vts?: unknown }).vts === 'metrics?';
const isAnswer = (m: unknown): m is MetricsAnswer => typeof m === 'object' && m !== null && (m as { vts?: unknown }).vts === 'metrics';

/** In the primary: answers the workers' requests with the aggregate of every worker's metrics. */
export function serveWorkerMetrics(log: Logger): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, m: unknown) => {
    if (!isRequest(m)) return;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ vts: 'metrics', id: m.id, text } satisfies MetricsAnswer),
      (err: unknown) => {
        log.warn({ err }, 'metrics: the workers did not all answer');
        worker.send({ vts: 'metrics', id: m.id, error: String(err) } satisfies MetricsAnswer);
      },
    );
  });
}

/**
 * In a worker: `registry` is what this worker reports to the primary, and the returned function
 * renders the aggregate of all workers (this worker's own metrics when the primary does not answer).
 */
export function workerMetrics(registry: Registry, log: Logger): () => Promise<string> {
  AggregatorRegistry.setRegistries([registry]);
  new AggregatorRegistry(); // the worker's side: answers the primary's requests
  let next = 0;
  const waiting = new Map<number, (answer: MetricsAnswer | null) => void>();
  process.on('message', (m: unknown) => {
    if (isAnswer(m)) waiting.get(m.id)?.(m);
  });
  return async () => {
    const id = next++;
    const answer = await new Promise<MetricsAnswer | null>((resolve) => {
      const timer = setTimeout(() => resolve(null), ANSWER_TIMEOUT_MS);
      waiting.set(id, (a) => {
        clearTimeout(timer);
        resolve(a);
      });
      process.send?.({ vts: 'metrics?', id } satisfies MetricsRequest);
    }).finally(() => waiting.delete(id));
    if (answer?.text !== undefined) return answer.text;
    log.warn({ error: answer?.error ?? 'no answer' }, "metrics: the other workers' metrics are missing: this worker's alone");
    return registry.metrics();
  };
}
