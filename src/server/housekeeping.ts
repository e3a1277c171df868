/**
 * The server's periodic jobs: the traffic accounting is collected, each peer's once a minute, a
 * slice of them each second, and written each minute; each minute what has expired is purged (history, old traffic days, delivered notifications, old audit log entries,
 * login and rate-limit counts); every few seconds the API sessions that have been idle too long end.
 */
import type { Logger } from 'pino';
import type { LoginGuard } from '../auth/login-guard.js';
import { SlicedSweep, slicesFor } from '../core/sliced-sweep.js';
import { startOfUtcDay } from '../core/time.js';
import type { RateLimiter } from '../core/rate-limit.js';
import { isVtsError } from '../errors.js';
import type { ApiSessions } from '../hub/sessions/api-sessions.js';
import type { Hub } from '../hub/hub.js';
import type { Peer } from '../hub/links/peer.js';
import type { PushService } from '../push/push-service.js';
import { logStoreFailure } from '../store/outage.js';
import type { Store } from '../store/store.js';
import { UNVERIFIED_KEEP_DAYS } from '../auth/signup.js';
import { purgeExpiredHistory } from './history-purge.js';

const PURGE_BATCH = 2500;

export interface HousekeepingParts {
  hub: Hub;
  store: Store;
  push: PushService;
  guard: LoginGuard;
  rateLimiter: RateLimiter;
  sessions: ApiSessions;
  log: Logger;
  /** Days of traffic accounting kept. */
  utilisationDays: number;
  /** Seconds notifications are kept as history. */
  notificationHistorySeconds: number;
  /** Days the audit log is kept. */
  auditRetentionDays: number;
  /** The period of the purge and traffic flush (ms). */
  intervalMs: number;
}

/** Writes the traffic counted since the last time, of every peer (the shutdown). */
export function flushTraffic(hub: Hub, store: Store): void {
  const now = hub.seconds();
  for (const peer of hub.peers()) hub.traffic.collect(peer, now);
  writeTraffic(hub, store);
}

/**
 * Collects the counts of the sweep's next slice of peers: every peer's once an interval, spread
 * over it (collecting 19,000 cars' counts at once held the event loop 14 ms). What is collected is
 * written with the interval's housekeeping (`writeTraffic`), in one batch as before.
 */
function collectTrafficSlice(hub: Hub, sweep: SlicedSweep<Peer>): void {
  const now = hub.seconds();
  sweep.step((peer) => hub.traffic.collect(peer, now));
}

/** Writes what was collected since the last time (the slices' and the ended connections' counts). */
function writeTraffic(hub: Hub, store: Store): void {
  const deltas = hub.traffic.drain();
  if (deltas.length > 0) store.addUtilisation(deltas);
}

/** Starts the timers; the function returned stops them. */
export function startHousekeeping(p: HousekeepingParts): () => void {
  const { hub, store, log } = p;
  let running = false;
  let stopped = false;
  const housekeeping = async (): Promise<void> => {
    if (running) return;
    running = true;
    try {
      writeTraffic(hub, store);
      const now = hub.seconds();
      // bounded batches, paced so that traffic is served between them (src/server/history-purge.ts)
      const purged = await purgeExpiredHistory(store, now, undefined, () => stopped);
      if (purged.records > 0) log.info({ records: purged.records, batches: purged.batches, ms: Math.round(purged.ms) }, 'expired history purged');
      if (stopped) return;
      await store.purgeUtilisation(startOfUtcDay(now) - (p.utilisationDays - 1) * 86400);
      await p.push.housekeeping(now, p.notificationHistorySeconds);
      for (let k = 0; k < 40; k++) {
        if ((await store.audit.purge(now - p.auditRetentionDays * 86400, PURGE_BATCH)) < PURGE_BATCH) break;
      }
      // sign-ups never verified free their name and address after a week
      const gone = await store.signup.purgeUnverified(now - UNVERIFIED_KEEP_DAYS * 86400, PURGE_BATCH);
      if (gone.length > 0) log.info({ users: gone.length }, `removed ${gone.length} signed-up account(s) never verified in ${UNVERIFIED_KEEP_DAYS} days`);
      p.guard.sweep();
      p.rateLimiter.tick(now);
    } catch (err) {
      // in a database outage it fails each time: the outage has its line (src/store/outage.ts)
      logStoreFailure(log, 'error', err, {}, 'housekeeping failed');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void housekeeping(), p.intervalMs);
  timer.unref();
  const slices = slicesFor(p.intervalMs, 60);
  const peers = new SlicedSweep(() => hub.peers()[Symbol.iterator](), () => hub.links.size, slices);
  const trafficTimer = setInterval(() => collectTrafficSlice(hub, peers), p.intervalMs / slices);
  trafficTimer.unref();
  const sessionTimer = setInterval(
    // while a cluster's Redis is away the cluster has said so: no warning every few seconds
    () => p.sessions.sweep().catch((err: unknown) => (isVtsError(err, 'VTS_ERR_CLUSTER') ? log.debug({ err }, 'API session sweep failed') : log.warn({ err }, 'API session sweep failed'))),
    Math.min(10_000, p.sessions.shortestTimeoutMs / 2),
  );
  sessionTimer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
    clearInterval(trafficTimer);
    clearInterval(sessionTimer);
  };
}
