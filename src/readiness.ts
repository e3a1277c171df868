/**
 * `GET /ready`: the store answers a read, the cluster engine (when configured) is joined, the
 * listeners are up and not closing. Checks that run at once share one run, and the store's read
 * is bounded, so a load balancer polling every second costs one tiny query a second at most.
 */
import type { Cluster } from './hub/cluster.js';
import type { Readiness } from './http/ops.js';
import type { Store } from './store/store.js';

/** A store read that has not answered by then counts as failed. */
const STORE_TIMEOUT_MS = 2000;

export interface ReadinessParts {
  store: Store;
  cluster: Cluster;
  /** `ok` once every listener is up, else why not (starting, shutting down). */
  listeners(): string;
}

function storeCheck(store: Store, timeoutMs: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`failed: no answer within ${timeoutMs} ms`), timeoutMs);
  });
  const read = store.databaseId().then(
    () => 'ok',
    (err: unknown) => `failed: ${err instanceof Error ? err.message : String(err)}`,
  );
  return Promise.race([read, timeout]).finally(() => clearTimeout(timer));
}

export function readinessCheck(parts: ReadinessParts, timeoutMs = STORE_TIMEOUT_MS): () => Promise<Readiness> {
  let running: Promise<Readiness> | null = null;
  const run = async (): Promise<Readiness> => {
    const checks = { store: await storeCheck(parts.store, timeoutMs), cluster: parts.cluster.health(), listeners: parts.listeners() };
    const ready = Object.values(checks).every((c) => c === 'ok' || c === 'off');
    return { ready, checks };
  };
  return () => (running ??= run().finally(() => (running = null)));
}
