/**
 * The finished attempts of push deliveries on PostgreSQL, recorded for the PgPushStore
 * (src/store/postgres/pg-push.ts): the deliveries' new state, the attempt rows, and the last result
 * noted on the subscriptions and targets they went to, in one transaction that takes its locks in
 * one order; a transaction that deadlocked all the same is tried again.
 */
import type { PoolClient } from 'pg';
import type { AttemptOutcome } from '../push-store.js';
import { outcomeColumns, type FinishRow } from '../push-rows.js';

/** Removes a subscription, unless its key changed meanwhile. */
export const REMOVE_SUBSCRIPTION_AT =
  'DELETE FROM push_subscriptions WHERE owner_id = $1 AND vehicle_id = $2 AND app_id = $3 AND push_key_value = $4';

/** A finished attempt's delivery, as `finishAttempts` locks it. */
export type LockedRow = FinishRow & { id: number };

/** Tries of a transaction that deadlocked (40P01) or failed to serialize (40001): it is rolled back whole, so it can run again. */
const DEADLOCK_TRIES = 3;

const isDeadlock = (err: unknown): boolean => {
  const c = (err as { code?: unknown } | null)?.code;
  return c === '40P01' || c === '40001';
};

/**
 * `fn` again when its transaction deadlocked: nothing of it was written, and nothing was sent
 * because of it (the deliveries were sent before it began).
 */
export async function unlessDeadlocked<T>(fn: () => Promise<T>): Promise<T> {
  for (let k = 1; ; k++) {
    try {
      return await fn();
    } catch (err) {
      if (k >= DEADLOCK_TRIES || !isDeadlock(err)) throw err;
    }
  }
}

/**
 * Records the attempts of `rows` (locked, held by the claimer) in one transaction. Every row
 * another transaction may lock too is locked in one order (the deliveries by id, then the
 * subscriptions by key, then the targets by id, as addNotification takes them): two nodes
 * recording overlapping sets wait for each other, never deadlock. A subscription or target
 * touched by several attempts is noted once, with the last of them (by delivery id).
 */
export async function recordAttempts(c: PoolClient, rows: readonly LockedRow[], outcomes: ReadonlyMap<number, AttemptOutcome>, time: number): Promise<void> {
  const cols = rows.map((r) => ({ r, o: outcomes.get(r.id)!, ...outcomeColumns(outcomes.get(r.id)!, r.receipt) }));
  await c.query(
    `WITH done AS (
       UPDATE push_deliveries d SET state = x.state, next_at = coalesce(x.next_at, d.next_at), receipt = x.receipt,
         attempts = d.attempts + 1, claimed_by = NULL, claimed_until = 0
         FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[]) AS x (id, state, next_at, receipt) WHERE d.id = x.id
     )
     INSERT INTO push_attempts (delivery_id, time, state, detail)
     SELECT x.id, $5, x.state, x.detail FROM unnest($1::bigint[], $2::text[], $6::text[]) WITH ORDINALITY AS x (id, state, detail, ord)
      ORDER BY x.ord`,
    [cols.map((x) => x.r.id), cols.map((x) => x.o.state), cols.map((x) => x.nextAt), cols.map((x) => x.receipt), time, cols.map((x) => x.o.detail)],
  );
  const subs = new Map<string, { r: LockedRow; o: AttemptOutcome }>();
  const removals: { r: LockedRow }[] = [];
  const targets = new Map<number, string>();
  for (const { r, o } of cols) {
    if (r.target_id !== 0) targets.set(r.target_id, o.detail);
    else {
      subs.set(`${r.owner_id}\0${r.vehicle_id}\0${r.app_id}`, { r, o });
      if (o.state === 'removed') removals.push({ r });
    }
  }
  if (subs.size > 0) {
    const list = [...subs.values()];
    const keys = [list.map((x) => x.r.owner_id), list.map((x) => x.r.vehicle_id), list.map((x) => x.r.app_id)];
    await c.query(
      `SELECT 1 FROM push_subscriptions
        WHERE (owner_id, vehicle_id, app_id) IN (SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[]))
        ORDER BY owner_id, vehicle_id, app_id FOR UPDATE`,
      keys,
    );
    await c.query(
      `UPDATE push_subscriptions s SET last_result = x.detail, last_time = $5
         FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[]) AS x (owner_id, vehicle_id, app_id, detail)
        WHERE s.owner_id = x.owner_id AND s.vehicle_id = x.vehicle_id AND s.app_id = x.app_id`,
      [...keys, list.map((x) => x.o.detail), time],
    );
    for (const { r } of removals) await c.query(REMOVE_SUBSCRIPTION_AT, [r.owner_id, r.vehicle_id, r.app_id, r.address]);
  }
  if (targets.size > 0) {
    const ids = [...targets.keys()];
    await c.query('SELECT 1 FROM notify_targets WHERE id = ANY ($1::bigint[]) ORDER BY id FOR UPDATE', [ids]);
    await c.query(
      `UPDATE notify_targets t SET last_result = x.detail, last_time = $3
         FROM unnest($1::bigint[], $2::text[]) AS x (id, detail) WHERE t.id = x.id`,
      [ids, [...targets.values()], time],
    );
  }
}
