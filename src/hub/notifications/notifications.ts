/**
 * Push notifications (docs/protocol/mp.md §12): a car's `P` alerts and the server's own (a car's failed
 * or restored login). Each is kept as `*-Log-Notification` history, handed to the notifier (the
 * push service: on the node that holds the vehicle, so once in a cluster) and, once committed, to
 * the listeners of `events` (`run` outputs) and to the live watchers of every node. The text is
 * the reference's: `E` vehicle-error alerts rendered (src/core/push/message.ts).
 *
 * Repeats collapse (issue 30): the same text from the same car within 60 s is recorded and pushed
 * once (cars send bursts of one alert). The car's `P` messages themselves still reach its apps
 * each time, as the protocol relays them. A vehicle's notifications are raised on the node that
 * holds it, so this node's memory of what it sent is enough.
 *
 * The alerts the server computes (src/alerts/) come through `alert`: tagged with their event and
 * rule, recorded and pushed the same way, and sent to the vehicle's apps as `P<type><text>`.
 */
import { randomInt } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { collapse, rememberSent, COLLAPSE_SECONDS, type SentText } from '../../core/alerts/delivery.js';
import { pushText } from '../../core/push/message.js';
import { isVtsError } from '../../errors.js';
import type { Store } from '../../store/store.js';
import type { Cluster, VehicleOutput } from '../cluster/cluster.js';
import type { HubOptions } from '../handlers/port.js';
import type { LiveEvent } from '../types.js';
import type { LiveWatchers } from '../observers/live-watchers.js';
import { NO_NOTIFIER } from './notifier.js';

/** A push notification (`P` from a car, or raised by the server), for the notifiers. */
export interface Notification {
  ownerId: number;
  vehicleId: string;
  alertType: string;
  text: string;
  time: number;
}

/** What a rule's alert carries: its kind (or `online`) and the rule's id. */
export interface AlertTag {
  event: string;
  rule: number;
}

/** Vehicles remembered for the collapse of repeats before the memory is swept. */
const SENT_SWEEP_SIZE = 1000;

interface NotifierHub {
  readonly store: Store;
  readonly log: Logger;
  readonly options: HubOptions;
  readonly live: LiveWatchers;
  readonly cluster: Cluster;
  seconds(): number;
  fanOut(vehicleId: string, out: VehicleOutput): void;
  /** A message for the vehicle's apps (on every node), after the commit. */
  toApps(vehicleId: string, ownerId: number, code: string, data: string): void;
}

export class Notifications {
  readonly events = new EventEmitter<{ notification: [Notification] }>();
  /**
   * Record numbers of the history: from a random start, so that the nodes of a cluster (and a
   * restarted process) do not write the same record in the same second.
   */
  private counter = randomInt(0x10000);
  /** The texts recorded per vehicle within the last 60 s (the collapse of repeats). */
  private readonly sent = new Map<string, SentText[]>();
  /** When the memory was last swept of vehicles silent for 60 s. */
  private swept = 0;

  constructor(private readonly hub: NotifierHub) {}

  /** Whether the text repeats one of the vehicle's within 60 s; else it is remembered as sent now. */
  private repeated(vehicleId: string, text: string, time: number): boolean {
    const recent = this.sent.get(vehicleId) ?? [];
    if (collapse(recent, vehicleId, text, time)) return true;
    // at most once a minute, and only when many vehicles are remembered
    if (this.sent.size >= SENT_SWEEP_SIZE && time - this.swept > COLLAPSE_SECONDS) {
      this.swept = time;
      for (const [id, list] of this.sent) if (list.every((s) => time - s.time > COLLAPSE_SECONDS)) this.sent.delete(id);
    }
    this.sent.set(vehicleId, rememberSent(recent, vehicleId, text, time));
    return false;
  }

  /**
   * Records a notification and hands it to the notifiers and the live watchers (on every node),
   * after the commit of what was stored before (its history record included). False (and nothing
   * done) when the same text came from the vehicle within the last 60 s.
   */
  notify(ownerId: number, vehicleId: string, alertType: string, raw: string, tag?: AlertTag): boolean {
    return this.record(ownerId, vehicleId, alertType, raw, tag) !== null;
  }

  /** `notify`: null for a repeat, else whether the outbox write succeeded (once it is over). */
  private record(ownerId: number, vehicleId: string, alertType: string, raw: string, tag?: AlertTag): Promise<boolean> | null {
    const hub = this.hub;
    const time = hub.seconds();
    const { text, push } = pushText(alertType, raw);
    if (this.repeated(vehicleId, text, time)) {
      hub.log.debug({ vehicle: vehicleId }, 'notification repeats one of the last 60 s: not recorded again');
      return null;
    }
    const keep = hub.options.notificationHistorySeconds;
    if (keep > 0) {
      const recordNumber = this.counter;
      this.counter = (this.counter + 1) & 0xffff;
      hub.store
        .addHistorical({ vehicleId, type: '*-Log-Notification', recordNumber, time, data: `${alertType},${text}`, expires: time + keep })
        .catch((err: unknown) => hub.log.error({ err, vehicle: vehicleId }, 'storing a notification failed'));
    }
    const written = (hub.options.notifier ?? NO_NOTIFIER).submit({ ownerId, vehicleId, alertType, text, time, push, ...tag });
    hub.store.afterCommit(() => {
      this.events.emit('notification', { ownerId, vehicleId, alertType, text, time });
      const live: LiveEvent = { kind: 'notification', type: alertType, text, time };
      hub.live.emit(vehicleId, live);
      hub.fanOut(vehicleId, { messages: [], live });
    });
    return written;
  }

  /**
   * A rule's alert (src/alerts/): recorded and pushed as `notify` does, tagged, and sent to the
   * vehicle's apps connected now as `P<type><text>`. Resolves (never rejects), once the outbox
   * write is over, to whether the alert is recorded: true also for a repeat of a text of the last
   * 60 s (recorded then), false when the outbox write failed.
   */
  alert(ownerId: number, vehicleId: string, alertType: string, text: string, tag: AlertTag): Promise<boolean> {
    const written = this.record(ownerId, vehicleId, alertType, text, tag);
    if (written === null) return Promise.resolve(true);
    this.hub.toApps(vehicleId, ownerId, 'P', alertType + text);
    return written;
  }

  /** REF's car-authentication alert: on the first failed car login of a vehicle, and on the next success. */
  carLoginResult(vehicleId: string, ownerId: number, success: boolean, address: string): void {
    this.hub.cluster.toggle('car-auth-failed', vehicleId, !success).then(
      (changed) => {
        if (changed) this.notify(ownerId, vehicleId, 'A', `Vehicle authentication ${success ? 'successful' : 'failed'} (${address})`);
      },
      // while Redis is away the cluster has said so once: not once more per car login
      (err: unknown) =>
        isVtsError(err, 'VTS_ERR_CLUSTER')
          ? this.hub.log.debug({ err, vehicle: vehicleId }, 'cluster: recording a car login failed')
          : this.hub.log.warn({ err, vehicle: vehicleId }, 'cluster: recording a car login failed'),
    );
  }
}
