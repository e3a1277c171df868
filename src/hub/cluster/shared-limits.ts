/**
 * The login throttle and the HTTP rate limit of a cluster: every node keeps its own buckets and
 * quotas (no round trip on the path of a request), and tells the others what they must count too:
 * each wrong secret at once, each newly trusted pair, and the requests of each address every
 * `flushMs`. So a guesser or a flood spread over several nodes meets one budget, give or take
 * what is in flight.
 */
import { parseSharedLoginEvent, type LoginGuard } from '../../auth/login-guard.js';
import type { RateLimiter } from '../../core/rate-limit.js';
import type { Cluster } from './cluster.js';

const LOGINS = 'logins';
const REQUESTS = 'requests';

function parseCounts(body: unknown): [string, number][] | null {
  if (!Array.isArray(body)) return null;
  const ok = body.every((e) => Array.isArray(e) && e.length === 2 && typeof e[0] === 'string' && typeof e[1] === 'number' && e[1] > 0 && e[1] < 1e9);
  return ok ? (body as [string, number][]) : null;
}

/** Shares the guard's and the limiter's counts with the other nodes; returns a function that stops. */
export function shareLimits(cluster: Cluster, guard: LoginGuard, limiter: RateLimiter, seconds: () => number, flushMs = 250): () => void {
  if (!cluster.clustered) return () => undefined;
  guard.share = (event) => cluster.broadcast(LOGINS, event);
  cluster.onBroadcast(LOGINS, (body) => {
    const event = parseSharedLoginEvent(body);
    if (event) guard.applyShared(event);
  });
  if (!limiter.enabled) return () => (guard.share = null);
  limiter.shareCounts();
  cluster.onBroadcast(REQUESTS, (body) => {
    const now = seconds();
    for (const [address, n] of parseCounts(body) ?? []) limiter.charge(address, n, now);
  });
  const timer = setInterval(() => {
    const counts = limiter.drainCounted();
    if (counts.length > 0) cluster.broadcast(REQUESTS, counts);
  }, flushMs);
  timer.unref();
  return () => {
    clearInterval(timer);
    guard.share = null;
  };
}
