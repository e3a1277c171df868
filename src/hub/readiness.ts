/**
 * `GET /ready`: the store answers a read, the cluster engine (when configured) is joined, the
 * listeners are up and not closing. A node that lost the cluster's Redis still serves its own
 * connections: it is ready, `degraded` (a load balancer keeps it; a monitor may alert). Checks that run at once share one run, and a store read that
 * has not settled is never doubled (on a database that does not answer, a probe every second would
 * otherwise take one pooled connection after the other). The answer is unauthenticated: it says
 * which check failed in a few fixed words; the database's own error goes to the log.
 */
import type { Logger } from 'pino';
import type { Cluster } from './cluster/cluster.js';
import { isOutage } from '../store/outage.js';
import type { Store } from '../store/store.js';

/** A store read that has not answered by then counts as failed. */
const STORE_TIMEOUT_MS = 2000;
/** The store's error is logged at most this often (ms). */
const LOG_EVERY_MS = 60_000;

/**
 * What `/ready` reports: each check `ok`, `off` (not configured), `degraded: <why>` (the node
 * serves, with less than all of its parts: the cluster's Redis is out of reach) or `failed: <why>`.
 * Ready (HTTP 200) while no check failed; `status` is `degraded` when a check is.
 */
export interface Readiness {
  ready: boolean;
  status: 'ready' | 'degraded' | 'not ready';
  checks: Record<string, string>;
}

export interface ReadinessParts {
  store: Store;
  cluster: Cluster;
  /** `ok` once every listener is up, else why not (starting, shutting down). */
  listeners(): string;
  log: Logger;
}

export function readinessCheck(parts: ReadinessParts, timeoutMs = STORE_TIMEOUT_MS, now: () => number = Date.now): () => Promise<Readiness> {
  let running: Promise<Readiness> | null = null;
  /** The store read under way (it may outlive the check that started it). */
  let reading: Promise<string> | null = null;
  let loggedAt = -Infinity;
  const read = (): Promise<string> =>
    (reading ??= parts.store
      .databaseId()
      .then(
        () => 'ok',
        (err: unknown) => {
          // an outage of the database has a log line of its own (src/store/outage.ts)
          if (!isOutage(err) && now() - loggedAt >= LOG_EVERY_MS) {
            loggedAt = now();
            parts.log.warn({ err }, 'not ready: the store does not answer');
          }
          return 'failed: the database does not answer';
        },
      )
      .finally(() => (reading = null)));
  const storeCheck = (): Promise<string> => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(`failed: the database did not answer within ${timeoutMs} ms`), timeoutMs);
    });
    return Promise.race([read(), late]).finally(() => clearTimeout(timer));
  };
  const run = async (): Promise<Readiness> => {
    const checks = { store: await storeCheck(), cluster: parts.cluster.health(), listeners: parts.listeners() };
    const values = Object.values(checks);
    const ready = values.every((c) => c === 'ok' || c === 'off' || c.startsWith('degraded'));
    const status = !ready ? 'not ready' : values.some((c) => c.startsWith('degraded')) ? 'degraded' : 'ready';
    return { ready, status, checks };
  };
  return () => (running ??= run().finally(() => (running = null)));
}
