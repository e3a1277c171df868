/**
 * The push service: the hub's Notifier. It writes each notification to the store's outbox (with
 * the vehicle's rate limit) and wakes the delivery thread (src/push/delivery-thread.ts), whose
 * dispatcher delivers it through the providers. A node of a cluster writes the notifications of
 * its own cars; every node works off the shared outbox, each delivery on one node at a time.
 *
 * The owner's quiet hours (issue 30, docs/alerts.md): a notification raised in them is recorded at
 * once and its deliveries wait until they end; the car's own `A` alerts (its alarms) are never held.
 */
import { quietEnds } from '../core/alerts/delivery.js';
import { logFormatOf } from '../util/log.js';
import type { Logger } from 'pino';
import type { Channel } from '../core/push/channels.js';
import type { Notifier, PushNotification } from '../hub/notifications/notifier.js';
import type { Store } from '../store/store.js';
import type { NotificationRules } from '../store/push-store.js';
import { DeliveryThread } from './delivery-thread.js';
import { DEFAULT_PUSH_LIMIT, type PushConfig } from './push-config.js';
import { reportProviders } from './providers.js';

/** Notifications are kept at least this long (the history the API and dashboard show). */
const MIN_KEEP_SECONDS = 7 * 86400;
const PURGE_BATCH = 1000;

/** Where the delivery thread finds the server's database, and who it claims as. */
export interface DeliveryPlace {
  dataDir: string;
  database: string | undefined;
  claimer: string;
  /** PostgreSQL: `--database-timeout` (ms). */
  databaseTimeoutMs?: number;
}

export class PushService implements Notifier {
  private readonly thread: DeliveryThread;
  private readonly rules: NotificationRules;
  /** The channels that are off, as the delivery thread found them. */
  private readonly off = new Map<Channel, string>();
  /** Per vehicle, the last notification being written (each waits for the one before). */
  private readonly writing = new Map<string, Promise<unknown>>();
  /** Channels with new deliveries, told to the thread at the end of the turn. */
  private readonly toKick = new Set<Channel>();
  /** Settles once the thread has said which providers are off (the outbox skips them). */
  private ready: Promise<void>;
  private markReady!: () => void;

  constructor(
    private readonly store: Store,
    config: PushConfig,
    private readonly log: Logger,
    place: DeliveryPlace,
  ) {
    const limit = config.limit ?? DEFAULT_PUSH_LIMIT;
    this.rules = {
      off: this.off,
      limit: { burst: limit.burst, intervalSeconds: limit.perMinute > 0 ? 60 / limit.perMinute : 0 },
      push: true,
    };
    this.ready = new Promise<void>((resolve) => (this.markReady = resolve));
    this.thread = new DeliveryThread({ config, dataDir: place.dataDir, database: place.database, databaseTimeoutMs: place.databaseTimeoutMs, claimer: place.claimer, logLevel: log.level, logFormat: logFormatOf(log) }, log);
  }

  /**
   * Starts the delivery thread and says which providers are on. A thread that cannot start is
   * logged and the server goes on: notifications are still written, and delivered by the next start.
   */
  async start(): Promise<void> {
    try {
      const report = await this.thread.start();
      reportProviders(report, this.log);
      for (const [channel, why] of report.off) this.off.set(channel, why);
    } catch (err) {
      this.log.error({ err: err instanceof Error ? err.message : String(err) }, 'push: the delivery thread did not start: notifications are kept in the outbox, not delivered');
    } finally {
      this.markReady();
    }
  }

  submit(n: PushNotification): Promise<boolean> {
    const rules = n.push ? this.rules : { ...this.rules, push: false };
    // a vehicle's notifications are written in the order they came (the quiet hours' read comes first)
    const written = (this.writing.get(n.vehicleId) ?? this.ready)
      .then(() => this.holdOf(n))
      .then((holdUntil) => this.store.push.addNotification(holdUntil === undefined ? n : { ...n, holdUntil }, rules))
      .then(
        (added) => {
          if (added.limited) this.log.info({ vehicle: n.vehicleId, notification: added.id }, "push: over the vehicle's rate limit: recorded, not sent");
          this.kick(added.channels);
          return true;
        },
        (err: unknown) => {
          this.log.error({ err, vehicle: n.vehicleId }, 'push: writing a notification to the outbox failed: it is not delivered');
          return false;
        },
      );
    this.writing.set(n.vehicleId, written);
    void written.then(() => {
      if (this.writing.get(n.vehicleId) === written) this.writing.delete(n.vehicleId);
    });
    return written;
  }

  /** When the owner's quiet hours that hold `n` end; undefined: sent at once (none, an alarm, or unreadable settings). */
  private async holdOf(n: PushNotification): Promise<number | undefined> {
    if (!n.push || (n.event === undefined && n.alertType === 'A')) return undefined;
    try {
      return quietEnds(await this.store.alerts.getQuietHours(n.ownerId), n.time) ?? undefined;
    } catch (err) {
      this.log.warn({ err, vehicle: n.vehicleId }, 'push: reading the quiet hours failed: sent at once');
      return undefined;
    }
  }

  /** Wakes the delivery thread for these channels: once per event-loop turn, for all the turn's notifications. */
  private kick(channels: readonly Channel[]): void {
    if (channels.length === 0) return;
    if (this.toKick.size === 0) {
      setImmediate(() => {
        const list = [...this.toKick];
        this.toKick.clear();
        this.thread.kick(list);
      });
    }
    for (const c of channels) this.toKick.add(c);
  }

  /** Deletes notifications older than the history keeps (and at least a week). */
  async housekeeping(now: number, keepSeconds: number): Promise<void> {
    const before = now - Math.max(keepSeconds, MIN_KEEP_SECONDS);
    for (let k = 0; k < 20; k++) {
      if ((await this.store.push.purgeNotifications(before, PURGE_BATCH)) < PURGE_BATCH) break;
    }
  }

  /**
   * Stops sending (what is in flight ends as a temporary failure, tried again later). The
   * notifications still being written go to the outbox first, so the next start delivers them.
   */
  async stop(): Promise<void> {
    this.markReady();
    await Promise.all(this.writing.values());
    await this.thread.stop();
  }
}
