/**
 * The push outbox on PostgreSQL (PushStore, src/store/push-store.ts), and the apps' push
 * subscriptions the Store upserts and lists: every statement of the push tables.
 *
 * Writes are the PgStore's direct writes (one at a time, in call order); reads wait for the direct
 * writes asked before them. A notification, a target, a subscription change commit with the
 * session's synchronous_commit (`on`: on the server's disk before they resolve); claims and
 * attempts, a few per delivery, with synchronous_commit off (as the write-behind batches): a crash
 * of the database server may lose the last of them, and then a delivery is sent again, never lost. Several nodes share the database: a notification locks its vehicle's token-bucket row
 * until it commits, a claim takes due deliveries with `FOR UPDATE SKIP LOCKED` (two nodes never
 * get the same one, nor wait for each other); recording attempts locks their deliveries by id,
 * then the subscriptions and targets they note, each in one order (two nodes recording at once
 * wait for each other, never deadlock; a deadlock all the same is tried again). Nothing is cached.
 */
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
  type HistoryRow,
  type SubscriptionStatusRow,
  type TargetRow,
} from '../push-rows.js';
import { toPushSubscription, type PushRow } from '../rows.js';
import type { PushSubscription } from '../store.js';
import type { PgAccess } from './pg-connection.js';
import { isForeignKeyViolation } from './pg-errors.js';
import { REMOVE_SUBSCRIPTION_AT, recordAttempts, unlessDeadlocked, type LockedRow } from './pg-push-attempts.js';

const SUBSCRIPTION_COLUMNS = 'owner_id, vehicle_id, app_id, push_type, push_key_type, push_key_value, last_updated, active::int AS active';

const NOTE_SUBSCRIPTION =
  'UPDATE push_subscriptions SET last_result = $1, last_time = $2 WHERE owner_id = $3 AND vehicle_id = $4 AND app_id = $5';
const NOTE_TARGET = 'UPDATE notify_targets SET last_result = $1, last_time = $2 WHERE id = $3';

/** A claim's or an attempt's commit need not wait for the disk (see the top of the file). */
const RELAXED = 'SET LOCAL synchronous_commit = off';

export class PgPushStore implements PushStore {
  constructor(private readonly db: PgAccess) {}

  // --- the Store's own subscription methods ---

  /** Store.upsertPushSubscription. */
  async upsertSubscription(p: PushSubscription): Promise<void> {
    const vid = p.vehicleId.toUpperCase();
    try {
      await this.db.change(
        `INSERT INTO push_subscriptions AS s
           (owner_id, vehicle_id, app_id, push_type, push_key_type, push_key_value, last_updated, active)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (owner_id, vehicle_id, app_id) DO UPDATE SET push_type = excluded.push_type,
           push_key_type = excluded.push_key_type, push_key_value = excluded.push_key_value,
           last_updated = excluded.last_updated, active = excluded.active,
           last_result = CASE WHEN s.push_key_value = excluded.push_key_value THEN s.last_result ELSE '' END,
           last_time = CASE WHEN s.push_key_value = excluded.push_key_value THEN s.last_time END`,
        [p.ownerId, vid, p.appId, p.pushType, p.pushKeyType, p.pushKeyValue, p.lastUpdated, p.active],
      );
    } catch (err) {
      if (!isForeignKeyViolation(err)) throw err;
      if ((await this.db.read('SELECT id FROM owners WHERE id = $1', [p.ownerId])).length === 0) {
        throw new VtsError('VTS_ERR_UNKNOWN_USER', `owner id ${p.ownerId}`);
      }
      throw new VtsError('VTS_ERR_UNKNOWN_VEHICLE', vid);
    }
  }

  /** Store.listPushSubscriptions. */
  async subscriptionsOf(ownerId: number, vehicleId: string): Promise<PushSubscription[]> {
    const rows = await this.db.read<PushRow>(
      `SELECT ${SUBSCRIPTION_COLUMNS} FROM push_subscriptions WHERE owner_id = $1 AND vehicle_id = $2 ORDER BY app_id`,
      [ownerId, vehicleId.toUpperCase()],
    );
    return rows.map(toPushSubscription);
  }

  // --- PushStore ---

  async addNotification(n: NewNotification, rules: NotificationRules): Promise<AddedNotification> {
    const vid = n.vehicleId.toUpperCase();
    return this.db.transaction(async (c): Promise<AddedNotification> => {
      if ((await c.query('SELECT 1 FROM vehicles WHERE id = $1', [vid])).rowCount === 0) {
        throw new VtsError('VTS_ERR_UNKNOWN_VEHICLE', vid);
      }
      let limited = false;
      if (rules.push && rules.limit.burst > 0) {
        // the bucket's row (a full one if there is none), locked until the commit: the vehicle's
        // notifications take their tokens one after the other, whichever node adds them
        const stored = (
          await c.query<BucketRow>(
            `INSERT INTO push_buckets AS b (vehicle_id, tokens, at) VALUES ($1, $2, $3)
             ON CONFLICT (vehicle_id) DO UPDATE SET vehicle_id = b.vehicle_id RETURNING tokens, at`,
            [vid, rules.limit.burst, n.time],
          )
        ).rows[0]!;
        const take = takeToken(stored, n.time, rules.limit);
        await c.query('UPDATE push_buckets SET tokens = $2, at = $3 WHERE vehicle_id = $1', [vid, take.tokens, take.at]);
        limited = !take.allowed;
      }
      const id = (
        await c
          .query<{ id: number }>(
            `INSERT INTO push_notifications (owner_id, vehicle_id, alert_type, text, time, limited, event, rule, held_until)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
            [n.ownerId, vid, n.alertType, n.text, n.time, limited, n.event ?? null, n.rule ?? null, n.holdUntil ?? null],
          )
          .catch((err: unknown) => {
            if (isForeignKeyViolation(err)) throw new VtsError('VTS_ERR_UNKNOWN_USER', `owner id ${n.ownerId}`);
            throw err;
          })
      ).rows[0]!.id;
      if (limited || !rules.push) return { id, limited, pending: 0, channels: [] };

      const subscriptions = await c.query<ActiveSubscriptionRow>(
        `SELECT app_id, push_type, push_key_value FROM push_subscriptions
         WHERE owner_id = $1 AND vehicle_id = $2 AND active ORDER BY app_id`,
        [n.ownerId, vid],
      );
      const targets = await c.query<{ id: number; kind: string }>('SELECT id, kind FROM notify_targets WHERE owner_id = $1 ORDER BY id', [
        n.ownerId,
      ]);
      const plan = planDeliveries(subscriptions.rows, targets.rows, rules);
      if (plan.length === 0) return { id, limited: false, pending: 0, channels: [] };
      const made = await c.query<{ id: number; app_id: string; target_id: number }>(
        `INSERT INTO push_deliveries (notification_id, channel, app_id, target_id, state, next_at)
         SELECT $1, x.channel, x.app_id, x.target_id, x.state, $2
           FROM unnest($3::text[], $4::text[], $5::bigint[], $6::text[]) WITH ORDINALITY AS x (channel, app_id, target_id, state, ord)
          ORDER BY x.ord
         RETURNING id, app_id, target_id`,
        [id, n.holdUntil ?? n.time, plan.map((p) => p.channel), plan.map((p) => p.appId), plan.map((p) => p.targetId), plan.map((p) => p.state)],
      );
      const ids = new Map(made.rows.map((r) => [`${r.target_id}\0${r.app_id}`, r.id]));
      for (const p of plan) {
        if (p.state === 'pending') continue;
        const did = ids.get(`${p.targetId}\0${p.appId}`)!;
        await c.query("INSERT INTO push_attempts (delivery_id, time, state, detail) VALUES ($1, $2, 'skipped', $3)", [did, n.time, p.detail]);
        if (p.targetId !== 0) await c.query(NOTE_TARGET, [p.detail, n.time, p.targetId]);
        else await c.query(NOTE_SUBSCRIPTION, [p.detail, n.time, n.ownerId, vid, p.appId]);
      }
      return { id, limited: false, ...pendingOf(plan) };
    });
  }

  async claimDeliveries(channel: Channel, max: number, now: number, claimer: string, leaseUntil: number): Promise<DeliveryItem[]> {
    const limit = rowLimit(max);
    if (limit === 0) {
      this.db.open();
      return [];
    }
    return this.db.transaction(async (c) => {
      await c.query(RELAXED);
      const out: DeliveryItem[] = [];
      // deliveries ended as removed make room for more in the same claim
      for (;;) {
        const want = limit - out.length;
        const rows = (
          await c.query<ClaimRow>(
            `SELECT ${CLAIM_COLUMNS} FROM ${CLAIM_FROM}
             WHERE d.channel = $1 AND d.state IN ${OPEN_STATES} AND d.next_at <= $2 AND d.claimed_until <= $2
             ORDER BY d.next_at, d.id LIMIT $3
             FOR UPDATE OF d SKIP LOCKED`,
            [channel, now, want],
          )
        ).rows;
        const claimed: DeliveryItem[] = [];
        const gone: { id: number; detail: string }[] = [];
        for (const r of rows) {
          const v = claimVerdict(r);
          if ('item' in v) claimed.push(v.item);
          else gone.push({ id: r.id, detail: v.gone });
        }
        if (claimed.length > 0) {
          await c.query(
            `UPDATE push_deliveries d SET claimed_by = $1, claimed_until = $2, address = x.a
               FROM unnest($3::bigint[], $4::text[]) AS x (id, a) WHERE d.id = x.id`,
            [claimer, leaseUntil, claimed.map((i) => i.id), claimed.map((i) => i.address)],
          );
          out.push(...claimed);
        }
        if (gone.length > 0) {
          await c.query(
            `WITH ended AS (
               UPDATE push_deliveries SET state = 'removed', claimed_by = NULL, claimed_until = 0 WHERE id = ANY ($1::bigint[])
             )
             INSERT INTO push_attempts (delivery_id, time, state, detail)
             SELECT x.id, $2, 'removed', x.detail FROM unnest($1::bigint[], $3::text[]) AS x (id, detail)`,
            [gone.map((g) => g.id), now, gone.map((g) => g.detail)],
          );
        }
        if (gone.length === 0 || rows.length < want || out.length >= limit || leaseUntil <= now) break;
      }
      return out;
    });
  }

  async finishAttempt(id: number, claimer: string, time: number, o: AttemptOutcome): Promise<boolean> {
    return (await this.finishAttempts(claimer, time, [{ id, outcome: o }]))[0]!;
  }

  async finishAttempts(claimer: string, time: number, attempts: readonly FinishedAttempt[]): Promise<boolean[]> {
    if (attempts.length === 0) return [];
    const outcomes = new Map(attempts.map((a) => [a.id, a.outcome]));
    return unlessDeadlocked(() =>
      this.db.transaction(async (c) => {
        await c.query(RELAXED);
        // the deliveries first, in id order
        const rows = (
          await c.query<LockedRow>(
            `SELECT d.id, d.claimed_by, d.receipt, d.app_id, d.target_id, d.address, n.owner_id, n.vehicle_id
               FROM push_deliveries d JOIN push_notifications n ON n.id = d.notification_id
              WHERE d.id = ANY ($1::bigint[]) ORDER BY d.id FOR UPDATE OF d`,
            [[...outcomes.keys()]],
          )
        ).rows;
        const mine = rows.filter((r) => r.claimed_by === claimer);
        if (mine.length > 0) await recordAttempts(c, mine, outcomes, time);
        const held = new Set(mine.map((r) => r.id));
        return attempts.map((a) => held.has(a.id));
      }),
    );
  }

  async releaseClaims(claimer: string): Promise<number> {
    const done = await this.db.change('UPDATE push_deliveries SET claimed_by = NULL, claimed_until = 0 WHERE claimed_by = $1', [claimer]);
    return done.rowCount ?? 0;
  }

  async recordResult(ref: ResultRef, time: number, detail: string, remove: boolean): Promise<void> {
    if ('targetId' in ref) {
      await this.db.change(NOTE_TARGET, [detail, time, ref.targetId]);
      return;
    }
    const vid = ref.vehicleId.toUpperCase();
    await this.db.transaction(async (c) => {
      await c.query(NOTE_SUBSCRIPTION, [detail, time, ref.ownerId, vid, ref.appId]);
      if (remove) await c.query(REMOVE_SUBSCRIPTION_AT, [ref.ownerId, vid, ref.appId, ref.address]);
    });
  }

  async listNotifications(ownerId: number, vehicleId: string | undefined, limit: number): Promise<NotificationView[]> {
    const rows =
      vehicleId === undefined
        ? await this.db.read<HistoryRow>(
            historySql('SELECT id FROM push_notifications WHERE owner_id = $1 ORDER BY id DESC LIMIT $2'),
            [ownerId, rowLimit(limit)],
          )
        : await this.db.read<HistoryRow>(
            historySql('SELECT id FROM push_notifications WHERE owner_id = $1 AND vehicle_id = $2 ORDER BY id DESC LIMIT $3'),
            [ownerId, vehicleId.toUpperCase(), rowLimit(limit)],
          );
    return toNotificationViews(rows);
  }

  async hasAlertNotification(vehicleId: string, rule: number, event: string, since: number): Promise<boolean> {
    const rows = await this.db.read<{ id: number }>(
      'SELECT id FROM push_notifications WHERE vehicle_id = $1 AND rule = $2 AND event = $3 AND time >= $4 LIMIT 1',
      [vehicleId.toUpperCase(), rule, event, since],
    );
    return rows.length > 0;
  }

  async purgeNotifications(before: number, limit: number): Promise<number> {
    const n = rowLimit(limit);
    if (n === 0) {
      this.db.open();
      return 0;
    }
    const done = await this.db.change(
      `DELETE FROM push_notifications WHERE id IN (
         SELECT n.id FROM push_notifications n WHERE n.time < $1 AND NOT EXISTS (
           SELECT 1 FROM push_deliveries d WHERE d.notification_id = n.id AND d.state IN ${OPEN_STATES})
         LIMIT $2)`,
      [before, n],
    );
    return done.rowCount ?? 0;
  }

  async countOpen(): Promise<Map<Channel, number>> {
    const rows = await this.db.read<{ channel: string; n: number }>(
      `SELECT channel, count(*) AS n FROM push_deliveries WHERE state IN ${OPEN_STATES} GROUP BY channel ORDER BY channel`,
      [],
    );
    return new Map(rows.map((r) => [r.channel as Channel, r.n]));
  }

  async addTarget(ownerId: number, kind: TargetKind, url: string, secret: string, time: number): Promise<NotifyTarget> {
    this.db.open();
    if (!isTargetKind(kind)) throw new VtsError('VTS_ERR_INVALID_INPUT', `target kind ${String(kind)}`);
    try {
      const { rows } = await this.db.change<TargetRow>(
        `INSERT INTO notify_targets (owner_id, kind, url, secret, created) VALUES ($1, $2, $3, $4, $5) RETURNING ${TARGET_COLUMNS}`,
        [ownerId, kind, url, secret, time],
      );
      return toTarget(rows[0]!);
    } catch (err) {
      if (isForeignKeyViolation(err)) throw new VtsError('VTS_ERR_UNKNOWN_USER', `owner id ${ownerId}`);
      throw err;
    }
  }

  async listTargets(ownerId: number): Promise<NotifyTarget[]> {
    return (await this.db.read<TargetRow>(`SELECT ${TARGET_COLUMNS} FROM notify_targets WHERE owner_id = $1 ORDER BY id`, [ownerId])).map(
      toTarget,
    );
  }

  async removeTarget(ownerId: number, id: number): Promise<boolean> {
    return ((await this.db.change('DELETE FROM notify_targets WHERE owner_id = $1 AND id = $2', [ownerId, id])).rowCount ?? 0) > 0;
  }

  async listSubscriptions(ownerId: number, vehicleId?: string): Promise<SubscriptionStatus[]> {
    const columns = `SELECT ${SUBSCRIPTION_COLUMNS}, last_result, last_time FROM push_subscriptions`;
    const rows =
      vehicleId === undefined
        ? await this.db.read<SubscriptionStatusRow>(`${columns} WHERE owner_id = $1 ORDER BY vehicle_id, app_id`, [ownerId])
        : await this.db.read<SubscriptionStatusRow>(`${columns} WHERE owner_id = $1 AND vehicle_id = $2 ORDER BY app_id`, [
            ownerId,
            vehicleId.toUpperCase(),
          ]);
    return rows.map(toSubscriptionStatus);
  }

  async removeSubscription(ownerId: number, vehicleId: string, appId: string): Promise<boolean> {
    const done = await this.db.change('DELETE FROM push_subscriptions WHERE owner_id = $1 AND vehicle_id = $2 AND app_id = $3', [
      ownerId,
      vehicleId.toUpperCase(),
      appId,
    ]);
    return (done.rowCount ?? 0) > 0;
  }
}
