/**
 * What both push outboxes (src/store/sqlite/sqlite-push.ts, src/store/postgres/pg-push.ts) decide
 * the same way, and the rows they read (column names of the schema; booleans as 0/1): the token
 * bucket, the deliveries a notification gets, what a claimed delivery becomes, the columns an
 * attempt's outcome sets, and the notification history as the interface shows it.
 */
import { subscriptionChannel, type Channel, type TargetKind } from '../core/push/channels.js';
import type {
  AttemptOutcome,
  DeliveryItem,
  DeliveryState,
  NotificationRules,
  NotificationView,
  NotifyTarget,
  SubscriptionStatus,
} from './push-store.js';
import { toPushSubscription, type PushRow } from './rows.js';

/** The states of a delivery still to be worked on (claimable). */
export const OPEN_STATES = "('pending', 'receipt')";

/** The detail of the attempt that ends a delivery whose subscription or target went away before it was sent. */
export const SUBSCRIPTION_GONE = 'subscription removed';
export const TARGET_GONE = 'target removed';

// --- the token bucket ---

export interface BucketRow {
  tokens: number;
  at: number;
}

/** Far above the rounding error of summed refills, far below any refill of a whole second (1 / intervalSeconds). */
const ROUNDING = 1e-9;

/** The bucket after a notification at `time` asked for a token, and whether it got one. */
export interface BucketTake extends BucketRow {
  allowed: boolean;
}

/**
 * Takes a token from the vehicle's bucket (none stored: a full one). The level is refilled by
 * (time − at) / intervalSeconds, capped at `burst`; a time before `at` (a clock that went back)
 * refills nothing and leaves `at` where it is. A level short of a whole token by no more than a
 * rounding error of the refills' sum counts as one (three thirds of a token make one). Not for
 * burst 0 (no limit: no bucket).
 */
export function takeToken(stored: BucketRow | undefined, time: number, limit: NotificationRules['limit']): BucketTake {
  const burst = limit.burst;
  let level: number;
  let at: number;
  if (stored === undefined) {
    level = burst;
    at = time;
  } else {
    const elapsed = Math.max(0, time - stored.at);
    const refill = limit.intervalSeconds > 0 ? elapsed / limit.intervalSeconds : elapsed > 0 ? Infinity : 0;
    level = Math.min(burst, stored.tokens + refill);
    at = Math.max(stored.at, time);
  }
  const allowed = level >= 1 - ROUNDING;
  if (allowed) level = Math.max(0, level - 1);
  return { allowed, tokens: level, at };
}

// --- the deliveries of a notification ---

/** An active subscription of the notification's owner and vehicle, as addNotification reads it. */
export interface ActiveSubscriptionRow {
  app_id: string;
  push_type: string;
  push_key_value: string;
}

/** One delivery to make. */
export interface PlannedDelivery {
  channel: Channel;
  appId: string;
  targetId: number;
  state: 'pending' | 'skipped';
  /** Why it is skipped ('' when pending): its one attempt's detail. */
  detail: string;
}

/** The deliveries of a plan to send now: how many, and their channels (each once). */
export function pendingOf(plan: readonly { channel: Channel; state: string }[]): { pending: number; channels: Channel[] } {
  const pending = plan.filter((p) => p.state === 'pending');
  return { pending: pending.length, channels: [...new Set(pending.map((p) => p.channel))] };
}

/**
 * One delivery per subscription whose push type maps to a channel (in the order given: by app
 * id), then one per target of the owner (by id); those of a channel that is off are skipped.
 */
export function planDeliveries(
  subscriptions: readonly ActiveSubscriptionRow[],
  targets: readonly { id: number; kind: string }[],
  rules: NotificationRules,
): PlannedDelivery[] {
  const out: PlannedDelivery[] = [];
  const plan = (channel: Channel, appId: string, targetId: number): void => {
    const off = rules.off.get(channel);
    out.push({ channel, appId, targetId, state: off === undefined ? 'pending' : 'skipped', detail: off ?? '' });
  };
  for (const s of subscriptions) {
    const channel = subscriptionChannel(s.push_type, s.push_key_value);
    if (channel !== undefined) plan(channel, s.app_id, 0);
  }
  for (const t of targets) plan(t.kind as TargetKind, '', t.id);
  return out;
}

// --- claims ---

/** A due delivery with its notification, owner, vehicle and current subscription or target (null columns: none). */
export interface ClaimRow {
  id: number;
  notification_id: number;
  channel: string;
  state: string;
  attempts: number;
  app_id: string;
  target_id: number;
  address: string;
  receipt: string;
  owner_id: number;
  owner_name: string;
  vehicle_id: string;
  vehicle_name: string;
  alert_type: string;
  text: string;
  time: number;
  event: string | null;
  rule: number | string | null;
  held_until: number | string | null;
  push_type: string | null;
  push_key_type: string | null;
  push_key_value: string | null;
  active: number | null;
  url: string | null;
  secret: string | null;
}

/** The columns every claim query selects (deliveries d, notifications n, owners o, vehicles v, subscriptions s, targets t). */
export const CLAIM_COLUMNS = `d.id, d.notification_id, d.channel, d.state, d.attempts, d.app_id, d.target_id, d.address,
  d.receipt, n.owner_id, o.name AS owner_name, n.vehicle_id, v.name AS vehicle_name, n.alert_type, n.text, n.time, n.event, n.rule, n.held_until,
  s.push_type, s.push_key_type, s.push_key_value, CAST(s.active AS INTEGER) AS active, t.url, t.secret`;

/** The FROM of the claim queries: a subscription matched by owner, vehicle and app id, a target by id and owner. */
export const CLAIM_FROM = `push_deliveries d
  JOIN push_notifications n ON n.id = d.notification_id
  JOIN owners o ON o.id = n.owner_id
  JOIN vehicles v ON v.id = n.vehicle_id
  LEFT JOIN push_subscriptions s ON d.target_id = 0 AND s.owner_id = n.owner_id AND s.vehicle_id = n.vehicle_id
    AND s.app_id = d.app_id
  LEFT JOIN notify_targets t ON d.target_id <> 0 AND t.id = d.target_id AND t.owner_id = n.owner_id`;

/** What a claimed row becomes: an item to deliver, or a delivery ended as removed (with the attempt's detail). */
export type ClaimVerdict = { item: DeliveryItem } | { gone: string };

/**
 * A `pending` delivery goes to the current address of its subscription (a resubscribed app's new
 * token) or target; one whose subscription is gone, inactive or of another channel now, or whose
 * target is gone, is not sent. A `receipt` (sent already, its receipt to check) is checked
 * whatever became of the subscription, at the address it was sent to.
 */
export function claimVerdict(r: ClaimRow): ClaimVerdict {
  const state = r.state as 'pending' | 'receipt';
  const item = (address: string, keyType: string, secret: string): { item: DeliveryItem } => ({
    item: {
      id: r.id,
      notificationId: r.notification_id,
      channel: r.channel as Channel,
      state,
      attempts: r.attempts,
      ownerId: r.owner_id,
      ownerName: r.owner_name,
      vehicleId: r.vehicle_id,
      vehicleName: r.vehicle_name,
      alertType: r.alert_type,
      text: r.text,
      time: r.time,
      event: r.event,
      rule: r.rule === null ? null : Number(r.rule),
      heldUntil: r.held_until === null ? null : Number(r.held_until),
      appId: r.app_id,
      targetId: r.target_id,
      keyType,
      address,
      secret,
      receipt: r.receipt,
    },
  });
  if (r.target_id !== 0) {
    if (r.url !== null) return item(r.url, '', r.secret ?? '');
    return state === 'receipt' ? item(r.address, '', '') : { gone: TARGET_GONE };
  }
  const current =
    r.push_type !== null && r.push_key_value !== null && r.active !== 0 && subscriptionChannel(r.push_type, r.push_key_value) === r.channel;
  if (current) return item(r.push_key_value!, r.push_key_type ?? '', '');
  return state === 'receipt' ? item(r.address, r.push_key_type ?? '', '') : { gone: SUBSCRIPTION_GONE };
}

// --- attempts ---

/** The delivery's columns after an attempt, from its outcome (`receipt`: the delivery's current one). */
export function outcomeColumns(o: AttemptOutcome, receipt: string): { nextAt: number | null; receipt: string } {
  switch (o.state) {
    case 'receipt':
      return { nextAt: o.nextAt, receipt: o.receipt };
    case 'pending':
      // sent again from the start: a receipt of an earlier try is no longer the one to check
      return { nextAt: o.nextAt, receipt: '' };
    default:
      return { nextAt: null, receipt };
  }
}

/** The delivery a finished attempt was about, as finishAttempt reads it. */
export interface FinishRow {
  claimed_by: string | null;
  receipt: string;
  app_id: string;
  target_id: number;
  address: string;
  owner_id: number;
  vehicle_id: string;
}

// --- what the owner sees ---

/** One row of the history query: a notification, one of its deliveries (or none) and one of its attempts (or none). */
export interface HistoryRow {
  id: number;
  vehicle_id: string;
  alert_type: string;
  text: string;
  time: number;
  limited: number;
  event: string | null;
  rule: number | string | null;
  held_until: number | string | null;
  d_id: number | null;
  channel: string | null;
  app_id: string | null;
  target_id: number | null;
  state: string | null;
  a_time: number | null;
  a_state: string | null;
  detail: string | null;
}

/**
 * The history query over the notifications chosen by `chosen` (a subquery of push_notifications
 * ids named `c`, with their order): ordered newest first, deliveries by id, attempts oldest first.
 */
export const historySql = (chosen: string): string => `
  SELECT n.id, n.vehicle_id, n.alert_type, n.text, n.time, CAST(n.limited AS INTEGER) AS limited, n.event, n.rule, n.held_until, d.id AS d_id, d.channel, d.app_id, d.target_id,
    d.state, a.time AS a_time, a.state AS a_state, a.detail
  FROM (${chosen}) c
  JOIN push_notifications n ON n.id = c.id
  LEFT JOIN push_deliveries d ON d.notification_id = n.id
  LEFT JOIN push_attempts a ON a.delivery_id = d.id
  ORDER BY n.id DESC, d.id, a.id`;

/** The notifications of history rows ordered as historySql orders them. */
export function toNotificationViews(rows: readonly HistoryRow[]): NotificationView[] {
  const out: NotificationView[] = [];
  let n: NotificationView | undefined;
  let d: NotificationView['deliveries'][number] | undefined;
  for (const r of rows) {
    if (n?.id !== r.id) {
      n = {
        id: r.id,
        vehicleId: r.vehicle_id,
        alertType: r.alert_type,
        text: r.text,
        time: r.time,
        limited: r.limited !== 0,
        event: r.event,
        rule: r.rule === null ? null : Number(r.rule),
        heldUntil: r.held_until === null ? null : Number(r.held_until),
        deliveries: [],
      };
      d = undefined;
      out.push(n);
    }
    if (r.d_id === null) continue;
    if (d?.id !== r.d_id) {
      d = {
        id: r.d_id,
        channel: r.channel as Channel,
        appId: r.app_id ?? '',
        targetId: r.target_id ?? 0,
        state: r.state as DeliveryState,
        attempts: [],
      };
      n.deliveries.push(d);
    }
    if (r.a_time !== null) d.attempts.push({ time: r.a_time, state: r.a_state as DeliveryState, detail: r.detail ?? '' });
  }
  return out;
}

export interface TargetRow {
  id: number;
  owner_id: number;
  kind: string;
  url: string;
  secret: string;
  created: number;
  last_result: string;
  last_time: number | null;
}

export const TARGET_COLUMNS = 'id, owner_id, kind, url, secret, created, last_result, last_time';

export function toTarget(r: TargetRow): NotifyTarget {
  return {
    id: r.id,
    ownerId: r.owner_id,
    kind: r.kind as TargetKind,
    url: r.url,
    secret: r.secret,
    created: r.created,
    lastResult: r.last_result,
    lastTime: r.last_time,
  };
}

export interface SubscriptionStatusRow extends PushRow {
  last_result: string;
  last_time: number | null;
}

export function toSubscriptionStatus(r: SubscriptionStatusRow): SubscriptionStatus {
  return { ...toPushSubscription(r), lastResult: r.last_result, lastTime: r.last_time };
}

/** A limit both databases take (a negative or fractional one as the nearest sensible count). */
export const rowLimit = (limit: number): number => (limit > 0 ? Math.min(Number.MAX_SAFE_INTEGER, Math.floor(limit)) : 0);
