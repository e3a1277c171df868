/**
 * Drives, charges and places on PostgreSQL (DrivesStore, src/store/drives-store.ts): every
 * statement of the sessions, session_details, session_trackers and places tables.
 *
 * Writes are the PgStore's direct writes (one at a time, in call order, committed with the
 * session's synchronous_commit: on the server's disk before they resolve); reads wait for the
 * direct writes asked before them. Several nodes share the database: a tracker's commit first
 * sets its checkpoint only where the stored sequence number is the expected one (an UPDATE that
 * locks the row, or an INSERT that finds none), so of two nodes committing at once the second
 * waits for the first and then finds the number changed: it changes nothing. A rebuild takes the
 * same row first. Nothing is cached. A vehicle's sessions and checkpoint go with it, an owner's
 * places with the owner (ON DELETE CASCADE).
 */
import type { PoolClient } from 'pg';
import type { Place, PlaceInput, Session, SessionKind, SessionOp } from '../../core/drives/types.js';
import { VtsError } from '../../errors.js';
import type { DrivesStore, StoredCharge, StoredDrive, StoredSession, TrackerCheckpoint } from '../drives-store.js';
import {
  listRange,
  listSql,
  oneSql,
  placeBody,
  retaggedBody,
  revisionsSql,
  SessionMemo,
  toPlace,
  toStoredCharge,
  toStoredDrive,
  uniqueByKey,
  type PlaceRow,
  type RevisedRow,
  type SessionColumns,
  type SessionRevision,
  type SessionRow,
} from '../drives-rows.js';
import { nowSeconds } from '../rows.js';
import type { PgAccess } from './pg-connection.js';
import { isForeignKeyViolation } from './pg-errors.js';

const P = (i: number): string => `$${i}`;

/** Sessions upserted per statement in a rebuild (their paths are sent with them). */
const CHUNK = 200;

/** Upserts sessions by kind and key (ids kept) with their details, in one statement; `columns` unique by kind and key. */
async function putSessions(c: PoolClient, vid: string, columns: readonly SessionColumns[]): Promise<void> {
  if (columns.length === 0) return;
  await c.query(
    `WITH x AS (
       SELECT * FROM unnest($2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::text[], $7::text[])
         AS x (kind, key, start_time, end_time, body, detail)
     ), up AS (
       INSERT INTO sessions (vehicle_id, kind, key, start_time, end_time, body)
       SELECT $1, kind, key, start_time, end_time, body FROM x
       ON CONFLICT (vehicle_id, kind, key) DO UPDATE SET start_time = excluded.start_time, end_time = excluded.end_time,
         body = excluded.body, rev = sessions.rev + 1
       RETURNING id, kind, key
     )
     INSERT INTO session_details (session_id, detail)
     SELECT up.id, x.detail FROM up JOIN x ON x.kind = up.kind AND x.key = up.key
     ON CONFLICT (session_id) DO UPDATE SET detail = excluded.detail`,
    [
      vid,
      columns.map((s) => s.kind),
      columns.map((s) => s.key),
      columns.map((s) => s.start),
      columns.map((s) => s.end),
      columns.map((s) => s.body),
      columns.map((s) => s.detail),
    ],
  );
}

/** Applies a tracker's operations in order (consecutive puts in one statement). */
async function applyOps(c: PoolClient, vid: string, ops: readonly SessionOp[]): Promise<void> {
  let puts: Session[] = [];
  const flush = async (): Promise<void> => {
    await putSessions(c, vid, uniqueByKey(puts));
    puts = [];
  };
  for (const op of ops) {
    if (op.op === 'put') {
      puts.push(op.session);
      continue;
    }
    await flush();
    await c.query('DELETE FROM sessions WHERE vehicle_id = $1 AND kind = $2 AND key = $3', [vid, op.session, op.key]);
  }
  await flush();
}

export class PgDrivesStore implements DrivesStore {
  private readonly memo = new SessionMemo();

  constructor(private readonly db: PgAccess) {}

  /** Nothing (an id that no row can have, which PostgreSQL would refuse as a bigint), once the store is known to be open. */
  private none(): undefined {
    this.db.open();
    return undefined;
  }

  /** A write of the vehicle's rows: a vehicle that does not exist is VTS_ERR_UNKNOWN_VEHICLE. */
  private async ofVehicle<T>(vid: string, fn: (c: PoolClient) => Promise<T>): Promise<T> {
    try {
      return await this.db.transaction(fn);
    } catch (err) {
      if (isForeignKeyViolation(err)) throw new VtsError('VTS_ERR_UNKNOWN_VEHICLE', vid);
      throw err;
    }
  }

  async loadTracker(vehicleId: string): Promise<TrackerCheckpoint | undefined> {
    const [r] = await this.db.read<TrackerCheckpoint>('SELECT seq, state FROM session_trackers WHERE vehicle_id = $1', [vehicleId.toUpperCase()]);
    return r && { seq: r.seq, state: r.state };
  }

  async commitTracker(vehicleId: string, expectedSeq: number, state: string, ops: readonly SessionOp[]): Promise<number | null> {
    const vid = vehicleId.toUpperCase();
    return this.ofVehicle(vid, async (c) => {
      const set =
        expectedSeq === 0
          ? await c.query<{ seq: number }>(
              `INSERT INTO session_trackers (vehicle_id, seq, state, updated) VALUES ($1, 1, $2, $3)
               ON CONFLICT (vehicle_id) DO NOTHING RETURNING seq`,
              [vid, state, nowSeconds()],
            )
          : await c.query<{ seq: number }>(
              'UPDATE session_trackers SET seq = seq + 1, state = $3, updated = $4 WHERE vehicle_id = $1 AND seq = $2 RETURNING seq',
              [vid, expectedSeq, state, nowSeconds()],
            );
      const seq = set.rows[0]?.seq;
      // another writer got there first: nothing was changed
      if (seq === undefined) return null;
      await applyOps(c, vid, ops);
      return seq;
    });
  }

  async replaceSessions(vehicleId: string, sessions: readonly Session[], state: string, since: number): Promise<number> {
    const vid = vehicleId.toUpperCase();
    const wanted = uniqueByKey(sessions);
    return this.ofVehicle(vid, async (c) => {
      const { rows } = await c.query<{ seq: number }>(
        `INSERT INTO session_trackers AS t (vehicle_id, seq, state, updated) VALUES ($1, 1, $2, $3)
         ON CONFLICT (vehicle_id) DO UPDATE SET seq = t.seq + 1, state = excluded.state, updated = excluded.updated
         RETURNING seq`,
        [vid, state, nowSeconds()],
      );
      await c.query(
        `DELETE FROM sessions s WHERE s.vehicle_id = $1 AND s.start_time >= $4 AND NOT EXISTS (
           SELECT 1 FROM unnest($2::text[], $3::text[]) AS x (kind, key) WHERE x.kind = s.kind AND x.key = s.key)`,
        [vid, wanted.map((w) => w.kind), wanted.map((w) => w.key), Math.floor(since)],
      );
      for (let i = 0; i < wanted.length; i += CHUNK) await putSessions(c, vid, wanted.slice(i, i + CHUNK));
      return rows[0]!.seq;
    });
  }

  private async list<S extends StoredSession>(vehicleId: string, kind: SessionKind, from: number, to: number, detailed: boolean, make: (r: SessionRow) => S): Promise<S[]> {
    const range = listRange(from, to);
    if (!range) {
      this.db.open();
      return [];
    }
    const args = [vehicleId.toUpperCase(), kind, ...range];
    if (detailed) return (await this.db.read<SessionRow>(listSql(P, true), args)).map(make);
    const revisions = await this.db.read<SessionRevision>(revisionsSql(P), args);
    return this.memo.list(
      revisions,
      (ids) => this.db.read<RevisedRow>('SELECT id, vehicle_id, body, rev FROM sessions WHERE id = ANY ($1::bigint[])', [ids]),
      make,
      () => this.db.read<SessionRow>(listSql(P, false), args),
    );
  }

  async listDrives(vehicleId: string, from: number, to: number, withPath = false): Promise<StoredDrive[]> {
    return this.list(vehicleId, 'drive', from, to, withPath, toStoredDrive);
  }

  async getDrive(vehicleId: string, id: number): Promise<StoredDrive | undefined> {
    if (!Number.isSafeInteger(id)) return this.none();
    const [r] = await this.db.read<SessionRow>(oneSql(P), [vehicleId.toUpperCase(), 'drive', id]);
    return r && toStoredDrive(r);
  }

  async listCharges(vehicleId: string, from: number, to: number, withSamples = false): Promise<StoredCharge[]> {
    return this.list(vehicleId, 'charge', from, to, withSamples, toStoredCharge);
  }

  async getCharge(vehicleId: string, id: number): Promise<StoredCharge | undefined> {
    if (!Number.isSafeInteger(id)) return this.none();
    const [r] = await this.db.read<SessionRow>(oneSql(P), [vehicleId.toUpperCase(), 'charge', id]);
    return r && toStoredCharge(r);
  }

  async retagSessions(vehicleId: string, given: readonly StoredSession[]): Promise<void> {
    const sessions = given.filter((s) => Number.isSafeInteger(s.id));
    if (sessions.length === 0) {
      this.db.open();
      return;
    }
    const vid = vehicleId.toUpperCase();
    await this.db.transaction(async (c) => {
      // the rows locked in id order (two re-taggings at once wait for each other, never deadlock)
      const { rows } = await c.query<{ id: number; kind: string; body: string }>(
        'SELECT id, kind, body FROM sessions WHERE vehicle_id = $1 AND id = ANY ($2::bigint[]) ORDER BY id FOR UPDATE',
        [vid, sessions.map((s) => s.id)],
      );
      // every entry given for a row, in order (as the SQLite store applies them one after the other)
      const byId = new Map<number, StoredSession[]>();
      for (const x of sessions) byId.set(x.id, [...(byId.get(x.id) ?? []), x]);
      const ids: number[] = [];
      const bodies: string[] = [];
      for (const r of rows) {
        let body: string | undefined;
        for (const x of byId.get(r.id)!) body = retaggedBody(body ?? r.body, r.kind, x) ?? body;
        if (body === undefined) continue;
        ids.push(r.id);
        bodies.push(body);
      }
      if (ids.length === 0) return;
      await c.query('UPDATE sessions s SET body = x.body, rev = s.rev + 1 FROM unnest($1::bigint[], $2::text[]) AS x (id, body) WHERE s.id = x.id', [ids, bodies]);
    });
  }

  // --- places ---

  async listPlaces(ownerId: number): Promise<Place[]> {
    return (await this.db.read<PlaceRow>('SELECT id, body FROM places WHERE owner_id = $1 ORDER BY id', [ownerId])).map(toPlace);
  }

  async addPlace(ownerId: number, place: PlaceInput): Promise<Place> {
    const body = placeBody(place);
    try {
      const { rows } = await this.db.change<{ id: number }>('INSERT INTO places (owner_id, body) VALUES ($1, $2) RETURNING id', [ownerId, body]);
      return toPlace({ id: rows[0]!.id, body });
    } catch (err) {
      if (isForeignKeyViolation(err)) throw new VtsError('VTS_ERR_UNKNOWN_USER', `owner id ${ownerId}`);
      throw err;
    }
  }

  async updatePlace(ownerId: number, id: number, place: PlaceInput): Promise<Place | undefined> {
    if (!Number.isSafeInteger(id)) return this.none();
    const body = placeBody(place);
    const done = await this.db.change('UPDATE places SET body = $1 WHERE owner_id = $2 AND id = $3', [body, ownerId, id]);
    return (done.rowCount ?? 0) > 0 ? toPlace({ id, body }) : undefined;
  }

  async removePlace(ownerId: number, id: number): Promise<boolean> {
    if (!Number.isSafeInteger(id)) {
      this.db.open();
      return false;
    }
    return ((await this.db.change('DELETE FROM places WHERE owner_id = $1 AND id = $2', [ownerId, id])).rowCount ?? 0) > 0;
  }
}
