/**
 * The push outbox on SQLite (PushStore, src/store/push-store.ts), and the apps' push
 * subscriptions the Store upserts and lists: every statement of the push tables.
 *
 * Every write is a direct write on the store's connection. Several processes may share the file:
 * the writes that read before they write (a notification and the vehicle's token bucket, a claim,
 * an attempt) are IMMEDIATE transactions, which take the database's write lock first, so no other
 * process changes what they read before they commit. Nothing here is cached.
 *
 * Durability: a notification, a target, a subscription change commit with synchronous=FULL (on
 * stable storage when they return, as the store's other direct writes). Claims and attempts, a
 * few per delivery, commit with synchronous=NORMAL, as the write-behind batches: a crash of the
 * process loses none of them, a power loss may lose the last ones, and then a delivery is sent
 * again (its claim or its outcome was lost), never lost. A FULL commit costs a disk flush, during
 * which better-sqlite3 holds the event loop (the cars' and apps' connections).
 */
import type Database from 'better-sqlite3';
import { isTargetKind, type Channel, type TargetKind } from '../../core/push/channels.js';
import { VtsError } from '../../errors.js';
import type {
  AddedNotification,
  AttemptOutcome,
  DeliveryItem,
  FinishedAttempt,
  NewNotification,
  NotificationRules,
  NotificationView,
  NotifyTarget,
  PushStore,
  ResultRef,
  SubscriptionStatus,
} from '../push-store.js';
import {
  CLAIM_COLUMNS,
  CLAIM_FROM,
  OPEN_STATES,
  TARGET_COLUMNS,
  claimVerdict,
  historySql,
  outcomeColumns,
  pendingOf,
  planDeliveries,
  rowLimit,
  takeToken,
  toNotificationViews,
  toSubscriptionStatus,
  toTarget,
  type ActiveSubscriptionRow,
  type BucketRow,
  type ClaimRow,
  type FinishRow,
  type HistoryRow,
  type SubscriptionStatusRow,
  type TargetRow,
} from '../push-rows.js';
import { toPushSubscription, type PushRow } from '../rows.js';
import type { PushSubscription } from '../store.js';
import { isForeignKeyViolation } from './sqlite-errors.js';
import { relaxedCommit } from './sqlite-relaxed.js';

const SUBSCRIPTION_COLUMNS = 'owner_id, vehicle_id, app_id, push_type, push_key_type, push_key_value, last_updated, active';

function prepareStatements(db: Database.Database) {
  return {
    ownerExists: db.prepare<[number], { id: number }>('SELECT id FROM owners WHERE id = ?'),
    vehicleExists: db.prepare<[string], { id: string }>('SELECT id FROM vehicles WHERE id = ?'),

    // subscriptions
    upsertSubscription: db.prepare<[number, string, string, string, string, string, number, number]>(
      `INSERT INTO push_subscriptions (${SUBSCRIPTION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (owner_id, vehicle_id, app_id) DO UPDATE SET push_type = excluded.push_type,
         push_key_type = excluded.push_key_type, push_key_value = excluded.push_key_value,
         last_updated = excluded.last_updated, active = excluded.active,
         last_result = CASE WHEN push_key_value = excluded.push_key_value THEN last_result ELSE '' END,
         last_time = CASE WHEN push_key_value = excluded.push_key_value THEN last_time END`,
    ),
    subscriptionsOf: db.prepare<[number, string], PushRow>(
      `SELECT ${SUBSCRIPTION_COLUMNS} FROM push_subscriptions WHERE owner_id = ? AND vehicle_id = ? ORDER BY app_id`,
    ),
    activeSubscriptions: db.prepare<[number, string], ActiveSubscriptionRow>(
      `SELECT app_id, push_type, push_key_value FROM push_subscriptions
       WHERE owner_id = ? AND vehicle_id = ? AND active = 1 ORDER BY app_id`,
    ),
    statusAll: db.prepare<[number], SubscriptionStatusRow>(
      `SELECT ${SUBSCRIPTION_COLUMNS}, last_result, last_time FROM push_subscriptions
       WHERE owner_id = ? ORDER BY vehicle_id, app_id`,
    ),
    statusOf: db.prepare<[number, string], SubscriptionStatusRow>(
      `SELECT ${SUBSCRIPTION_COLUMNS}, last_result, last_time FROM push_subscriptions
       WHERE owner_id = ? AND vehicle_id = ? ORDER BY app_id`,
    ),
    noteSubscription: db.prepare<[string, number, number, string, string]>(
      'UPDATE push_subscriptions SET last_result = ?, last_time = ? WHERE owner_id = ? AND vehicle_id = ? AND app_id = ?',
    ),
    removeSubscription: db.prepare<[number, string, string]>(
      'DELETE FROM push_subscriptions WHERE owner_id = ? AND vehicle_id = ? AND app_id = ?',
    ),
    removeSubscriptionAt: db.prepare<[number, string, string, string]>(
      'DELETE FROM push_subscriptions WHERE owner_id = ? AND vehicle_id = ? AND app_id = ? AND push_key_value = ?',
    ),

    // targets
    addTarget: db.prepare<[number, string, string, string, number], TargetRow>(
      `INSERT INTO notify_targets (owner_id, kind, url, secret, created) VALUES (?, ?, ?, ?, ?) RETURNING ${TARGET_COLUMNS}`,
    ),
    listTargets: db.prepare<[number], TargetRow>(`SELECT ${TARGET_COLUMNS} FROM notify_targets WHERE owner_id = ? ORDER BY id`),
    removeTarget: db.prepare<[number, number]>('DELETE FROM notify_targets WHERE owner_id = ? AND id = ?'),
    noteTarget: db.prepare<[string, number, number]>('UPDATE notify_targets SET last_result = ?, last_time = ? WHERE id = ?'),

    // notifications and their deliveries
    bucket: db.prepare<[string], BucketRow>('SELECT tokens, at FROM push_buckets WHERE vehicle_id = ?'),
    putBucket: db.prepare<[string, number, number]>(
      `INSERT INTO push_buckets (vehicle_id, tokens, at) VALUES (?, ?, ?)
       ON CONFLICT (vehicle_id) DO UPDATE SET tokens = excluded.tokens, at = excluded.at`,
    ),
    addNotification: db.prepare<[number, string, string, string, number, number, string | null, number | null, number | null], { id: number }>(
      `INSERT INTO push_notifications (owner_id, vehicle_id, alert_type, text, time, limited, event, rule, held_until) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       RETURNING id`,
    ),
    addDelivery: db.prepare<[number, string, string, number, string, number], { id: number }>(
      `INSERT INTO push_deliveries (notification_id, channel, app_id, target_id, state, next_at) VALUES (?, ?, ?, ?, ?, ?)
       RETURNING id`,
    ),
    addAttempt: db.prepare<[number, number, string, string]>(
      'INSERT INTO push_attempts (delivery_id, time, state, detail) VALUES (?, ?, ?, ?)',
    ),

    // claims and attempts
    due: db.prepare<[string, number, number, number], ClaimRow>(
      `SELECT ${CLAIM_COLUMNS} FROM ${CLAIM_FROM}
       WHERE d.channel = ? AND d.state IN ${OPEN_STATES} AND d.next_at <= ? AND d.claimed_until <= ?
       ORDER BY d.next_at, d.id LIMIT ?`,
    ),
    claim: db.prepare<[string, number, string, number]>(
      'UPDATE push_deliveries SET claimed_by = ?, claimed_until = ?, address = ? WHERE id = ?',
    ),
    endGone: db.prepare<[number]>(
      "UPDATE push_deliveries SET state = 'removed', claimed_by = NULL, claimed_until = 0 WHERE id = ?",
    ),
    releaseClaims: db.prepare<[string]>(
      'UPDATE push_deliveries SET claimed_by = NULL, claimed_until = 0 WHERE claimed_by = ?',
    ),
    finishRow: db.prepare<[number], FinishRow>(
      `SELECT d.claimed_by, d.receipt, d.app_id, d.target_id, d.address, n.owner_id, n.vehicle_id
       FROM push_deliveries d JOIN push_notifications n ON n.id = d.notification_id WHERE d.id = ?`,
    ),
    finish: db.prepare<[string, number | null, string, number]>(
      `UPDATE push_deliveries SET state = ?, next_at = coalesce(?, next_at), receipt = ?, attempts = attempts + 1,
         claimed_by = NULL, claimed_until = 0
       WHERE id = ?`,
    ),

    // what the owner sees, housekeeping
    historyAll: db.prepare<[number, number], HistoryRow>(
      historySql('SELECT id FROM push_notifications WHERE owner_id = ? ORDER BY id DESC LIMIT ?'),
    ),
    historyOf: db.prepare<[number, string, number], HistoryRow>(
      historySql('SELECT id FROM push_notifications WHERE owner_id = ? AND vehicle_id = ? ORDER BY id DESC LIMIT ?'),
    ),
    alertRaised: db.prepare<[string, number, string, number], { id: number }>(
      'SELECT id FROM push_notifications WHERE vehicle_id = ? AND rule = ? AND event = ? AND time >= ? LIMIT 1',
    ),
    purge: db.prepare<[number, number]>(
      `DELETE FROM push_notifications WHERE id IN (
         SELECT n.id FROM push_notifications n WHERE n.time < ? AND NOT EXISTS (
           SELECT 1 FROM push_deliveries d WHERE d.notification_id = n.id AND d.state IN ${OPEN_STATES})
         LIMIT ?)`,
    ),
    countOpen: db.prepare<[], { channel: string; n: number }>(
      `SELECT channel, count(*) AS n FROM push_deliveries WHERE state IN ${OPEN_STATES} GROUP BY channel ORDER BY channel`,
    ),
  };
}

type Statements = ReturnType<typeof prepareStatements>;

export class SqlitePushStore implements PushStore {
  private readonly s: Statements;
  private readonly addTx: (n: NewNotification, rules: NotificationRules) => AddedNotification;
  private readonly claimTx: (channel: Channel, max: number, now: number, claimer: string, leaseUntil: number) => DeliveryItem[];
  private readonly finishTx: (claimer: string, time: number, attempts: readonly FinishedAttempt[]) => boolean[];
  private readonly recordTx: (ref: ResultRef, time: number, detail: string, remove: boolean) => void;

  /** `open` throws VTS_ERR_STORE_CLOSED once the store is closed. */
  constructor(
    private readonly db: Database.Database,
    private readonly open: () => void,
  ) {
    const s = (this.s = prepareStatements(db));

    this.addTx = db.transaction((n: NewNotification, rules: NotificationRules): AddedNotification => {
      const vid = n.vehicleId.toUpperCase();
      if (!s.vehicleExists.get(vid)) throw new VtsError('VTS_ERR_UNKNOWN_VEHICLE', vid);
      let limited = false;
      if (rules.push && rules.limit.burst > 0) {
        const take = takeToken(s.bucket.get(vid), n.time, rules.limit);
        s.putBucket.run(vid, take.tokens, take.at);
        limited = !take.allowed;
      }
      let id: number;
      try {
        id = s.addNotification.get(n.ownerId, vid, n.alertType, n.text, n.time, limited ? 1 : 0, n.event ?? null, n.rule ?? null, n.holdUntil ?? null)!.id;
      } catch (err) {
        if (isForeignKeyViolation(err)) throw new VtsError('VTS_ERR_UNKNOWN_USER', `owner id ${n.ownerId}`);
        throw err;
      }
      if (limited || !rules.push) return { id, limited, pending: 0, channels: [] };
      const plan = planDeliveries(s.activeSubscriptions.all(n.ownerId, vid), s.listTargets.all(n.ownerId), rules);
      for (const p of plan) {
        const did = s.addDelivery.get(id, p.channel, p.appId, p.targetId, p.state, n.holdUntil ?? n.time)!.id;
        if (p.state === 'pending') continue;
        s.addAttempt.run(did, n.time, 'skipped', p.detail);
        if (p.targetId !== 0) s.noteTarget.run(p.detail, n.time, p.targetId);
        else s.noteSubscription.run(p.detail, n.time, n.ownerId, vid, p.appId);
      }
      return { id, limited: false, ...pendingOf(plan) };
    }).immediate;

    this.claimTx = db.transaction((channel: Channel, max: number, now: number, claimer: string, leaseUntil: number) => {
      const out: DeliveryItem[] = [];
      // deliveries ended as removed make room for more in the same claim
      for (;;) {
        const want = max - out.length;
        if (want <= 0) break;
        const rows = s.due.all(channel, now, now, want);
        let gone = 0;
        for (const r of rows) {
          const v = claimVerdict(r);
          if ('item' in v) {
            s.claim.run(claimer, leaseUntil, v.item.address, r.id);
            out.push(v.item);
          } else {
            s.endGone.run(r.id);
            s.addAttempt.run(r.id, now, 'removed', v.gone);
            gone++;
          }
        }
        if (gone === 0 || rows.length < want) break;
      }
      return out;
    }).immediate;

    const finishOne = (id: number, claimer: string, time: number, o: AttemptOutcome): boolean => {
      const r = s.finishRow.get(id);
      if (!r || r.claimed_by !== claimer) return false;
      const cols = outcomeColumns(o, r.receipt);
      s.finish.run(o.state, cols.nextAt, cols.receipt, id);
      s.addAttempt.run(id, time, o.state, o.detail);
      if (r.target_id !== 0) {
        s.noteTarget.run(o.detail, time, r.target_id);
      } else {
        s.noteSubscription.run(o.detail, time, r.owner_id, r.vehicle_id, r.app_id);
        if (o.state === 'removed') s.removeSubscriptionAt.run(r.owner_id, r.vehicle_id, r.app_id, r.address);
      }
      return true;
    };
    this.finishTx = db.transaction((claimer: string, time: number, attempts: readonly FinishedAttempt[]): boolean[] =>
      attempts.map((a) => finishOne(a.id, claimer, time, a.outcome)),
    ).immediate;

    this.recordTx = db.transaction((ref: ResultRef, time: number, detail: string, remove: boolean) => {
      if ('targetId' in ref) {
        s.noteTarget.run(detail, time, ref.targetId);
        return;
      }
      const vid = ref.vehicleId.toUpperCase();
      s.noteSubscription.run(detail, time, ref.ownerId, vid, ref.appId);
      if (remove) s.removeSubscriptionAt.run(ref.ownerId, vid, ref.appId, ref.address);
    }).immediate;
  }

  // --- the Store's own subscription methods ---

  /** Store.upsertPushSubscription. */
  upsertSubscription(p: PushSubscription): void {
    const vid = p.vehicleId.toUpperCase();
    try {
      this.s.upsertSubscription.run(p.ownerId, vid, p.appId, p.pushType, p.pushKeyType, p.pushKeyValue, p.lastUpdated, p.active ? 1 : 0);
    } catch (err) {
      if (!isForeignKeyViolation(err)) throw err;
      if (!this.s.ownerExists.get(p.ownerId)) throw new VtsError('VTS_ERR_UNKNOWN_USER', `owner id ${p.ownerId}`);
      throw new VtsError('VTS_ERR_UNKNOWN_VEHICLE', vid);
    }
  }

  /** Store.listPushSubscriptions. */
  subscriptionsOf(ownerId: number, vehicleId: string): PushSubscription[] {
    return this.s.subscriptionsOf.all(ownerId, vehicleId.toUpperCase()).map(toPushSubscription);
  }

  // --- PushStore ---

  async addNotification(n: NewNotification, rules: NotificationRules): Promise<AddedNotification> {
    this.open();
    return this.addTx(n, rules);
  }

  async claimDeliveries(channel: Channel, max: number, now: number, claimer: string, leaseUntil: number): Promise<DeliveryItem[]> {
    this.open();
    const limit = rowLimit(max);
    return limit === 0 ? [] : relaxedCommit(this.db, () => this.claimTx(channel, limit, now, claimer, leaseUntil));
  }

  async finishAttempt(id: number, claimer: string, time: number, outcome: AttemptOutcome): Promise<boolean> {
    this.open();
    return (await this.finishAttempts(claimer, time, [{ id, outcome }]))[0]!;
  }

  async finishAttempts(claimer: string, time: number, attempts: readonly FinishedAttempt[]): Promise<boolean[]> {
    this.open();
    return attempts.length === 0 ? [] : relaxedCommit(this.db, () => this.finishTx(claimer, time, attempts));
  }

  async releaseClaims(claimer: string): Promise<number> {
    this.open();
    return this.s.releaseClaims.run(claimer).changes;
  }

  async recordResult(ref: ResultRef, time: number, detail: string, remove: boolean): Promise<void> {
    this.open();
    this.recordTx(ref, time, detail, remove);
  }

  async listNotifications(ownerId: number, vehicleId: string | undefined, limit: number): Promise<NotificationView[]> {
    this.open();
    const rows =
      vehicleId === undefined
        ? this.s.historyAll.all(ownerId, rowLimit(limit))
        : this.s.historyOf.all(ownerId, vehicleId.toUpperCase(), rowLimit(limit));
    return toNotificationViews(rows);
  }

  async hasAlertNotification(vehicleId: string, rule: number, event: string, since: number): Promise<boolean> {
    this.open();
    return this.s.alertRaised.get(vehicleId.toUpperCase(), rule, event, since) !== undefined;
  }

  async purgeNotifications(before: number, limit: number): Promise<number> {
    this.open();
    const n = rowLimit(limit);
    return n === 0 ? 0 : this.s.purge.run(before, n).changes;
  }

  async countOpen(): Promise<Map<Channel, number>> {
    this.open();
    return new Map(this.s.countOpen.all().map((r) => [r.channel as Channel, r.n]));
  }

  async addTarget(ownerId: number, kind: TargetKind, url: string, secret: string, time: number): Promise<NotifyTarget> {
    this.open();
    if (!isTargetKind(kind)) throw new VtsError('VTS_ERR_INVALID_INPUT', `target kind ${String(kind)}`);
    try {
      return toTarget(this.s.addTarget.get(ownerId, kind, url, secret, time)!);
    } catch (err) {
      if (isForeignKeyViolation(err)) throw new VtsError('VTS_ERR_UNKNOWN_USER', `owner id ${ownerId}`);
      throw err;
    }
  }

  async listTargets(ownerId: number): Promise<NotifyTarget[]> {
    this.open();
    return this.s.listTargets.all(ownerId).map(toTarget);
  }

  async removeTarget(ownerId: number, id: number): Promise<boolean> {
    this.open();
    return this.s.removeTarget.run(ownerId, id).changes > 0;
  }

  async listSubscriptions(ownerId: number, vehicleId?: string): Promise<SubscriptionStatus[]> {
    this.open();
    const rows = vehicleId === undefined ? this.s.statusAll.all(ownerId) : this.s.statusOf.all(ownerId, vehicleId.toUpperCase());
    return rows.map(toSubscriptionStatus);
  }

  async removeSubscription(ownerId: number, vehicleId: string, appId: string): Promise<boolean> {
    this.open();
    return this.s.removeSubscription.run(ownerId, vehicleId.toUpperCase(), appId).changes > 0;
  }
}
