/**
 * The push outbox (issue 15), part of the Store on both databases: each notification and, per
 * subscription or user target that should receive it, one delivery; each delivery's attempts.
 * The outbox is written before delivery starts, survives restarts, and is shared by the nodes of a
 * cluster: a node claims due deliveries for a while (a lease) before it sends them, so each is sent
 * by one node at a time; a node that dies leaves its claims to expire and another node takes them.
 *
 * Times are epoch seconds. Vehicle ids upper-cased as everywhere in the store.
 */
import type { Channel, TargetKind } from '../core/push/channels.js';
import type { PushSubscription } from './types.js';

/** A notification to record and deliver (text already as pushed: `E` alerts expanded). */
export interface NewNotification {
  ownerId: number;
  vehicleId: string;
  alertType: string;
  text: string;
  time: number;
  /** A rule's alert (issue 30): its kind (or `online`) and the rule's id; absent for the car's own. */
  event?: string;
  rule?: number;
  /** The deliveries wait until then (the owner's quiet hours); absent: sent at once. */
  holdUntil?: number;
}

export interface NotificationRules {
  /**
   * Channels that are off on this server, with why (e.g. "apns is off: no --apns-key"): a
   * subscription of such a channel gets a delivery in state `skipped` with that detail, so the
   * owner sees why nothing arrived. Every other channel is on.
   */
  off: ReadonlyMap<Channel, string>;
  /**
   * The vehicle's token bucket: `burst` notifications at once, refilled by one every
   * `intervalSeconds`; kept in the store, so it holds across restarts and nodes. burst 0: no limit.
   * A notification over the limit is recorded (`limited`) without deliveries.
   */
  limit: { burst: number; intervalSeconds: number };
  /**
   * false: recorded without deliveries, and without taking a token (the reference does not push
   * `E` alerts with `: DMC:`).
   */
  push: boolean;
}

/**
 * Which subscriptions get a delivery: every active `push_subscriptions` row of (owner, vehicle)
 * whose push type maps to a channel (src/core/push/channels.ts `subscriptionChannel`), and every
 * target of the owner (targets are per user: all vehicles).
 */
export interface AddedNotification {
  id: number;
  limited: boolean;
  /** Deliveries made in state `pending` (to send now). */
  pending: number;
  /** The channels of those deliveries, each once. */
  channels: Channel[];
}

/**
 * `pending`: to send (again) at `nextAt`; `receipt`: accepted by the provider, its receipt is to be
 * checked at `nextAt` (Expo); `delivered`; `failed` (permanent failure, or given up); `skipped`
 * (the channel is off); `removed` (the provider called the address invalid, or the subscription or
 * target went away before it was sent: the subscription is removed / nothing was sent).
 */
export type DeliveryState = 'pending' | 'receipt' | 'delivered' | 'failed' | 'skipped' | 'removed';

/** Everything a provider needs to deliver one notification to one address. */
export interface DeliveryItem {
  /** The delivery's id (0 for a direct send: `vts push test`). */
  id: number;
  notificationId: number;
  channel: Channel;
  /** `pending`: send it; `receipt`: check the receipt of what was sent (Expo). */
  state: 'pending' | 'receipt';
  /** Attempts made before this one. */
  attempts: number;
  ownerId: number;
  ownerName: string;
  vehicleId: string;
  /** The owner's name of the vehicle ('' when it has none). */
  vehicleName: string;
  alertType: string;
  text: string;
  /** When the notification was raised. */
  time: number;
  /** A rule's alert: its kind (or `online`) and the rule's id; null for the car's own notifications. */
  event: string | null;
  rule: number | null;
  /** Until when the delivery was held for the owner's quiet hours (the retries count from then); null: not held. */
  heldUntil: number | null;
  /** The subscription's app id ('' for a user target). */
  appId: string;
  /** The user target's id (0 for a subscription). */
  targetId: number;
  /** The subscription's push key type (`production`, `sandbox`, `simple`, …; '' for a target). */
  keyType: string;
  /** Device token, mail address, or the target's URL. */
  address: string;
  /** The webhook's HMAC secret ('' none). */
  secret: string;
  /** The provider's ticket once accepted (Expo), else ''. */
  receipt: string;
}

/** How an attempt ended, as the dispatcher decided. */
export type AttemptOutcome =
  | { state: 'delivered'; detail: string }
  | { state: 'receipt'; detail: string; receipt: string; nextAt: number }
  /** Send again at nextAt (a receipt the delivery had is dropped: it is sent anew). */
  | { state: 'pending'; detail: string; nextAt: number }
  | { state: 'failed'; detail: string }
  /** The address is invalid: the delivery ends and its subscription is removed (if it still has that address). */
  | { state: 'removed'; detail: string };

export interface AttemptView {
  time: number;
  /** The state the attempt left the delivery in. */
  state: DeliveryState;
  detail: string;
}

export interface DeliveryView {
  id: number;
  channel: Channel;
  appId: string;
  targetId: number;
  state: DeliveryState;
  /** Attempts, oldest first (a skipped delivery has one, saying why). */
  attempts: AttemptView[];
}

export interface NotificationView {
  id: number;
  vehicleId: string;
  alertType: string;
  text: string;
  time: number;
  limited: boolean;
  /** A rule's alert: its kind (or `online`) and the rule's id; null for the car's own notifications. */
  event: string | null;
  rule: number | null;
  /** Until when the deliveries were held for the owner's quiet hours; null: not held. */
  heldUntil: number | null;
  /** Ordered by id. */
  deliveries: DeliveryView[];
}

export interface NotifyTarget {
  id: number;
  ownerId: number;
  kind: TargetKind;
  url: string;
  /** The webhook's HMAC secret ('' none). Never shown once set: lists say whether there is one. */
  secret: string;
  created: number;
  /** The last attempt's detail ('' never tried) and time. */
  lastResult: string;
  lastTime: number | null;
}

export interface SubscriptionStatus extends PushSubscription {
  /** The last attempt's detail ('' never tried) and time. */
  lastResult: string;
  lastTime: number | null;
}

/** An attempt's outcome, for `finishAttempts`. */
export interface FinishedAttempt {
  id: number;
  outcome: AttemptOutcome;
}

/** Where a direct send went (`vts push test`): a subscription or a user target. */
export type ResultRef = { ownerId: number; vehicleId: string; appId: string; address: string } | { targetId: number };

export interface PushStore {
  /**
   * Records a notification and makes its deliveries, in one transaction, durably (committed
   * before it resolves), after the token bucket of the vehicle allowed it. A skipped delivery's
   * reason is also noted as its subscription's or target's last result.
   * @throws VtsError VTS_ERR_UNKNOWN_VEHICLE when there is no such vehicle
   */
  addNotification(n: NewNotification, rules: NotificationRules): Promise<AddedNotification>;
  /**
   * Claims at most `max` deliveries of `channel` in state `pending` or `receipt` whose `nextAt` ≤
   * now and whose claim (if any) expired, for `claimer` until `leaseUntil`, oldest `nextAt` first.
   * Several processes may claim at once: none gets a delivery another holds. A `pending` delivery
   * goes to the current address of its subscription (an app that subscribed again with a new
   * token gets it there) or target; one whose subscription is gone, inactive or of another channel
   * now, or whose target is gone, is ended as `removed` instead (an attempt says why), and not
   * returned. A `receipt` delivery (sent already) is returned at the address it was sent to, as
   * its subscription may be now. The address a claim returns is kept with the delivery, for
   * `finishAttempt`'s `removed`.
   */
  claimDeliveries(channel: Channel, max: number, now: number, claimer: string, leaseUntil: number): Promise<DeliveryItem[]>;
  /**
   * Records an attempt of a delivery `claimer` holds, releases the claim, and notes the detail as
   * the subscription's or target's last result. Every outcome counts as an attempt (`attempts`
   * + 1). `pending` forgets the receipt (the message is sent again), `receipt` sets it, others keep
   * it. `removed` also deletes the subscription when it still has the address of the last claim
   * (a target is never deleted). false (nothing written) when `claimer` no longer holds it
   * (another claimed it after its lease ran out; a lease that ran out and was not claimed again is
   * still held).
   */
  finishAttempt(id: number, claimer: string, time: number, outcome: AttemptOutcome): Promise<boolean>;
  /** `finishAttempt` of several deliveries in one transaction: an answer each, in order. */
  finishAttempts(claimer: string, time: number, attempts: readonly FinishedAttempt[]): Promise<boolean[]>;
  /**
   * Lets go of every claim `claimer` holds (a node that starts again under the same id takes back
   * at once what it held when it died, instead of waiting for the leases); returns how many.
   */
  releaseClaims(claimer: string): Promise<number>;
  /** Notes a direct send's result (`vts push test`) on the subscription or target; `remove`: delete the subscription (if it still has that address). */
  recordResult(ref: ResultRef, time: number, detail: string, remove: boolean): Promise<void>;
  /** The newest notifications of the owner (of one vehicle, or all its vehicles), newest first, with deliveries and attempts. */
  listNotifications(ownerId: number, vehicleId: string | undefined, limit: number): Promise<NotificationView[]>;
  /**
   * Whether the vehicle has a notification of the alert rule `rule` with that event at or after
   * `since` (a rule's alert raised before a crash is not raised again after it: src/alerts/).
   */
  hasAlertNotification(vehicleId: string, rule: number, event: string, since: number): Promise<boolean>;
  /** Deletes at most `limit` notifications older than `before` with no delivery pending or awaiting a receipt; returns how many. */
  purgeNotifications(before: number, limit: number): Promise<number>;
  /** Deliveries in state `pending` or `receipt`, by channel (channels without any are absent). */
  countOpen(): Promise<Map<Channel, number>>;

  // --- a user's own targets (webhook, ntfy) ---
  /** @throws VtsError VTS_ERR_UNKNOWN_USER */
  addTarget(ownerId: number, kind: TargetKind, url: string, secret: string, time: number): Promise<NotifyTarget>;
  /** Ordered by id. */
  listTargets(ownerId: number): Promise<NotifyTarget[]>;
  removeTarget(ownerId: number, id: number): Promise<boolean>;

  // --- the apps' subscriptions, as the owner sees them ---
  /** The owner's subscriptions (of one vehicle or all), ordered by vehicle then app id, with their last results. */
  listSubscriptions(ownerId: number, vehicleId?: string): Promise<SubscriptionStatus[]>;
  removeSubscription(ownerId: number, vehicleId: string, appId: string): Promise<boolean>;
}
