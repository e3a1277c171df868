/**
 * Push notifications (docs/protocol/mp.md §12): a car's `P` alerts and the server's own (a car's failed
 * or restored login). Each is kept as `*-Log-Notification` history, handed to the notifier (the
 * push service: on the node that holds the vehicle, so once in a cluster) and, once committed, to
 * the listeners of `events` (`run` outputs) and to the live watchers of every node. The text is
 * the reference's: `E` vehicle-error alerts rendered (src/core/push/message.ts).
 */
import { randomInt } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
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

interface NotifierHub {
  readonly store: Store;
  readonly log: Logger;
  readonly options: HubOptions;
  readonly live: LiveWatchers;
  readonly cluster: Cluster;
  seconds(): number;
  fanOut(vehicleId: string, out: VehicleOutput): void;
}

export class Notifications {
  readonly events = new EventEmitter<{ notification: [Notification] }>();
  /**
   * Record numbers of the history: from a random start, so that the nodes of a cluster (and a
   * restarted process) do not write the same record in the same second.
   */
  private counter = randomInt(0x10000);

  constructor(private readonly hub: NotifierHub) {}

  /**
   * Records a notification and hands it to the notifiers and the live watchers (on every node),
   * after the commit of what was stored before (its history record included).
   */
  notify(ownerId: number, vehicleId: string, alertType: string, raw: string): void {
    const hub = this.hub;
    const time = hub.seconds();
    const { text, push } = pushText(alertType, raw);
    const keep = hub.options.notificationHistorySeconds;
    if (keep > 0) {
      const recordNumber = this.counter;
      this.counter = (this.counter + 1) & 0xffff;
      hub.store
        .addHistorical({ vehicleId, type: '*-Log-Notification', recordNumber, time, data: `${alertType},${text}`, expires: time + keep })
        .catch((err: unknown) => hub.log.error({ err, vehicle: vehicleId }, 'storing a notification failed'));
    }
    (hub.options.notifier ?? NO_NOTIFIER).submit({ ownerId, vehicleId, alertType, text, time, push });
    hub.store.afterCommit(() => {
      this.events.emit('notification', { ownerId, vehicleId, alertType, text, time });
      const live: LiveEvent = { kind: 'notification', type: alertType, text, time };
      hub.live.emit(vehicleId, live);
      hub.fanOut(vehicleId, { messages: [], live });
    });
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
