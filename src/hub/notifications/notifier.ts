/**
 * The one notifier interface of the hub (issue 15): the hub hands it every notification it raises,
 * on the node that holds the vehicle (so once in a cluster); the push service (src/push/) writes it
 * to the store's outbox and delivers it. `submit` returns at once and never throws: a slow or
 * failing delivery never delays the car's connection or the hub. Its promise (never rejected)
 * says, once the outbox write is over, whether the notification was written (false: it failed).
 */

export interface PushNotification {
  ownerId: number;
  vehicleId: string;
  alertType: string;
  /** The text as pushed (src/core/push/message.ts `pushText`: `E` alerts rendered). */
  text: string;
  time: number;
  /** false: kept in the outbox's history, not pushed (the reference's `: DMC:` debug alerts). */
  push: boolean;
  /** A rule's alert (issue 30): its kind (or `online`) and the rule's id; absent for the car's own. */
  event?: string;
  rule?: number;
}

export interface Notifier {
  submit(n: PushNotification): Promise<boolean>;
}

/** No delivery (a hub without a push service: tests, tools). */
export const NO_NOTIFIER: Notifier = { submit: () => Promise.resolve(true) };
