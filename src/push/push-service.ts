/**
 * The push service: the hub's Notifier. It writes each notification to the store's outbox (with
 * the vehicle's rate limit) and wakes the dispatcher, which delivers it through the providers.
 * A node of a cluster writes the notifications of its own cars; every node works off the shared
 * outbox, each delivery on one node at a time.
 */
import type { Logger } from 'pino';
import type { Notifier, PushNotification } from '../hub/notifier.js';
import type { Store } from '../store/store.js';
import type { NotificationRules } from '../store/push-store.js';
import { DEFAULT_DISPATCHER_OPTIONS, Dispatcher, type DispatcherOptions } from './dispatcher.js';
import { buildProviders, reportProviders, type PushProviderConfig, type ProviderSet } from './providers.js';

export interface PushConfig extends PushProviderConfig {
  /** The vehicle's rate limit: notifications at once, and per minute after (0/0: no limit). Default 10/1. */
  limit?: { burst: number; perMinute: number };
  /** Seconds before the first retry (doubling). */
  retrySeconds?: number;
  /** Seconds after which a delivery is given up. */
  giveUpSeconds?: number;
  /** Seconds one attempt may take. */
  timeoutSeconds?: number;
  /** Seconds after which Expo's receipts are checked. */
  receiptDelaySeconds?: number;
  /** How often the outbox is looked at for due deliveries (ms). */
  pollMs?: number;
  /** Extra trusted CA certificates (PEM) for the providers' TLS endpoints (tests). */
  ca?: string;
}

export const DEFAULT_PUSH_LIMIT = { burst: 10, perMinute: 1 };

/** Notifications are kept at least this long (the history the API and dashboard show). */
const MIN_KEEP_SECONDS = 7 * 86400;
const PURGE_BATCH = 1000;

export class PushService implements Notifier {
  private readonly dispatcher: Dispatcher;
  private readonly rules: NotificationRules;
  private readonly providers: ProviderSet;

  constructor(
    private readonly store: Store,
    config: PushConfig,
    private readonly log: Logger,
    claimer: string,
    private readonly seconds: () => number,
  ) {
    this.providers = buildProviders(config, { log, now: () => seconds() * 1000, ...(config.ca ? { ca: config.ca } : {}) });
    reportProviders(this.providers, log);
    const limit = config.limit ?? DEFAULT_PUSH_LIMIT;
    this.rules = {
      off: this.providers.off,
      limit: { burst: limit.burst, intervalSeconds: limit.perMinute > 0 ? 60 / limit.perMinute : 0 },
      push: true,
    };
    const d = DEFAULT_DISPATCHER_OPTIONS;
    const o: DispatcherOptions = {
      ...d,
      claimer,
      retryFirstSeconds: config.retrySeconds ?? d.retryFirstSeconds,
      giveUpSeconds: config.giveUpSeconds ?? d.giveUpSeconds,
      timeoutSeconds: config.timeoutSeconds ?? d.timeoutSeconds,
      receiptDelaySeconds: config.receiptDelaySeconds ?? d.receiptDelaySeconds,
      pollMs: config.pollMs ?? d.pollMs,
    };
    this.dispatcher = new Dispatcher(this.providers.providers, store.push, o, log, seconds);
  }

  start(): Promise<void> {
    return this.dispatcher.start();
  }

  submit(n: PushNotification): void {
    const rules = n.push ? this.rules : { ...this.rules, push: false };
    this.store.push.addNotification(n, rules).then(
      (added) => {
        if (added.limited) this.log.info({ vehicle: n.vehicleId, notification: added.id }, 'push: over the vehicle\'s rate limit: recorded, not sent');
        if (added.pending > 0) this.dispatcher.kick();
      },
      (err: unknown) => this.log.error({ err, vehicle: n.vehicleId }, 'push: writing a notification to the outbox failed: it is not delivered'),
    );
  }

  /** Deletes notifications older than the history keeps (and at least a week). */
  async housekeeping(now: number, keepSeconds: number): Promise<void> {
    const before = now - Math.max(keepSeconds, MIN_KEEP_SECONDS);
    for (let k = 0; k < 20; k++) {
      if ((await this.store.push.purgeNotifications(before, PURGE_BATCH)) < PURGE_BATCH) break;
    }
  }

  /** Stops sending (what is in flight ends as a temporary failure, tried again later) and closes the providers. */
  async stop(): Promise<void> {
    await this.dispatcher.stop();
    await Promise.allSettled(this.providers.providers.map((p) => p.close()));
  }
}
