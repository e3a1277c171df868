/**
 * Drives, charges and places on SQLite (DrivesStore, src/store/drives-store.ts): every statement
 * of the sessions, session_details, session_trackers and places tables.
 *
 * Every write is a direct write on the store's connection, committed with the connection's
 * synchronous=FULL (on stable storage when it returns), but a tracker's commits, its sessions with
 * its checkpoint (synchronous=NORMAL: see commitTracker). A tracker's commit and a rebuild read the
 * checkpoint before they write: they are IMMEDIATE transactions, which take the database's write
 * lock first, so no other process (another node's tracker, `vts sessions rebuild`) commits in
 * between. Nothing is cached. A vehicle's sessions and checkpoint go with it, an owner's places
 * with the owner (ON DELETE CASCADE).
 */
import type Database from 'better-sqlite3';
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
  sessionColumns,
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
import { isForeignKeyViolation } from './sqlite-errors.js';
import { relaxedCommit } from './sqlite-relaxed.js';

const P = (): string => '?';

function prepareStatements(db: Database.Database) {
  return {
    // trackers
    tracker: db.prepare<[string], TrackerCheckpoint>('SELECT seq, state FROM session_trackers WHERE vehicle_id = ?'),
    putTracker: db.prepare<[string, number, string, number]>(
      `INSERT INTO session_trackers (vehicle_id, seq, state, updated) VALUES (?, ?, ?, ?)
       ON CONFLICT (vehicle_id) DO UPDATE SET seq = excluded.seq, state = excluded.state, updated = excluded.updated`,
    ),

    // sessions
    upsert: db.prepare<[string, string, string, number, number | null, string], { id: number }>(
      `INSERT INTO sessions (vehicle_id, kind, key, start_time, end_time, body) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (vehicle_id, kind, key) DO UPDATE SET start_time = excluded.start_time, end_time = excluded.end_time,
         body = excluded.body, rev = rev + 1
       RETURNING id`,
    ),
    putDetail: db.prepare<[number, string]>(
      `INSERT INTO session_details (session_id, detail) VALUES (?, ?)
       ON CONFLICT (session_id) DO UPDATE SET detail = excluded.detail`,
    ),
    remove: db.prepare<[string, string, string]>('DELETE FROM sessions WHERE vehicle_id = ? AND kind = ? AND key = ?'),
    keys: db.prepare<[string, number], { id: number; kind: string; key: string }>('SELECT id, kind, key FROM sessions WHERE vehicle_id = ? AND start_time >= ?'),
    removeId: db.prepare<[number]>('DELETE FROM sessions WHERE id = ?'),
    list: db.prepare<[string, string, number, number], SessionRow>(listSql(P, false)),
    revisions: db.prepare<[string, string, number, number], SessionRevision>(revisionsSql(P)),
    revised: db.prepare<[string], RevisedRow>('SELECT id, vehicle_id, body, rev FROM sessions WHERE id IN (SELECT value FROM json_each(?))'),
    listDetailed: db.prepare<[string, string, number, number], SessionRow>(listSql(P, true)),
    one: db.prepare<[string, string, number], SessionRow>(oneSql(P)),
    tagged: db.prepare<[string, number], { kind: string; body: string }>('SELECT kind, body FROM sessions WHERE vehicle_id = ? AND id = ?'),
    retag: db.prepare<[string, number]>('UPDATE sessions SET body = ?, rev = rev + 1 WHERE id = ?'),

    // places
    places: db.prepare<[number], PlaceRow>('SELECT id, body FROM places WHERE owner_id = ? ORDER BY id'),
    addPlace: db.prepare<[number, string], { id: number }>('INSERT INTO places (owner_id, body) VALUES (?, ?) RETURNING id'),
    updatePlace: db.prepare<[string, number, number]>('UPDATE places SET body = ? WHERE owner_id = ? AND id = ?'),
    removePlace: db.prepare<[number, number]>('DELETE FROM places WHERE owner_id = ? AND id = ?'),
  };
}

type Statements = ReturnType<typeof prepareStatements>;

export class SqliteDrivesStore implements DrivesStore {
  private readonly s: Statements;
  private readonly memo = new SessionMemo();
  private readonly commitTx: (vid: string, expectedSeq: number, state: string, ops: readonly SessionOp[]) => number | null;
  private readonly replaceTx: (vid: string, sessions: readonly Session[], state: string, since: number) => number;
  private readonly retagTx: (vid: string, sessions: readonly StoredSession[]) => void;

  /** `open` throws VTS_ERR_STORE_CLOSED once the store is closed. */
  constructor(
    private readonly db: Database.Database,
    private readonly open: () => void,
  ) {
    const s = (this.s = prepareStatements(db));

    const put = (vid: string, c: SessionColumns): void => {
      const { id } = s.upsert.get(vid, c.kind, c.key, c.start, c.end, c.body)!;
      s.putDetail.run(id, c.detail);
    };

    this.commitTx = db.transaction((vid: string, expectedSeq: number, state: string, ops: readonly SessionOp[]): number | null => {
      const seq = s.tracker.get(vid)?.seq ?? 0;
      if (seq !== expectedSeq) return null;
      for (const op of ops) {
        if (op.op === 'put') put(vid, sessionColumns(op.session));
        else s.remove.run(vid, op.session, op.key);
      }
      s.putTracker.run(vid, seq + 1, state, nowSeconds());
      return seq + 1;
    }).immediate;

    this.replaceTx = db.transaction((vid: string, sessions: readonly Session[], state: string, since: number): number => {
      const seq = (s.tracker.get(vid)?.seq ?? 0) + 1;
      s.putTracker.run(vid, seq, state, nowSeconds());
      const wanted = uniqueByKey(sessions);
      const keep = new Set(wanted.map((c) => `${c.kind}\0${c.key}`));
      for (const r of s.keys.all(vid, Math.floor(since))) if (!keep.has(`${r.kind}\0${r.key}`)) s.removeId.run(r.id);
      for (const c of wanted) put(vid, c);
      return seq;
    }).immediate;

    this.retagTx = db.transaction((vid: string, sessions: readonly StoredSession[]): void => {
      for (const x of sessions) {
        const row = s.tagged.get(vid, x.id);
        const body = row && retaggedBody(row.body, row.kind, x);
        if (body !== undefined) s.retag.run(body, x.id);
      }
    }).immediate;
  }

  /** `fn`, a write of the vehicle's rows: a vehicle that does not exist is VTS_ERR_UNKNOWN_VEHICLE. */
  private ofVehicle<T>(vid: string, fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      if (isForeignKeyViolation(err)) throw new VtsError('VTS_ERR_UNKNOWN_VEHICLE', vid);
      throw err;
    }
  }

  async loadTracker(vehicleId: string): Promise<TrackerCheckpoint | undefined> {
    this.open();
    const r = this.s.tracker.get(vehicleId.toUpperCase());
    return r && { seq: r.seq, state: r.state };
  }

  async commitTracker(vehicleId: string, expectedSeq: number, state: string, ops: readonly SessionOp[]): Promise<number | null> {
    this.open();
    const vid = vehicleId.toUpperCase();
    // the sessions and the checkpoint do not wait for the disk (an fsync per commit on the event
    // loop stalled a parked fleet's app requests every second): both are derived from the history,
    // whose writes commit with NORMAL too, they commit together, and in WAL mode a kill -9 loses
    // neither; a power loss only makes the tracker work them out again from its previous
    // checkpoint and the history
    return relaxedCommit(this.db, () => this.ofVehicle(vid, () => this.commitTx(vid, expectedSeq, state, ops)));
  }

  async replaceSessions(vehicleId: string, sessions: readonly Session[], state: string, since: number): Promise<number> {
    this.open();
    const vid = vehicleId.toUpperCase();
    return this.ofVehicle(vid, () => this.replaceTx(vid, sessions, state, since));
  }

  private list<S extends StoredSession>(vid: string, kind: SessionKind, from: number, to: number, detailed: boolean, make: (r: SessionRow) => S): Promise<S[]> | S[] {
    this.open();
    const range = listRange(from, to);
    if (!range) return [];
    if (detailed) return this.s.listDetailed.all(vid.toUpperCase(), kind, ...range).map(make);
    const args = [vid.toUpperCase(), kind, ...range] as const;
    return this.memo.list(this.s.revisions.all(...args), (ids) => this.s.revised.all(JSON.stringify(ids)), make, () => this.s.list.all(...args));
  }

  async listDrives(vehicleId: string, from: number, to: number, withPath = false): Promise<StoredDrive[]> {
    return this.list(vehicleId, 'drive', from, to, withPath, toStoredDrive);
  }

  async getDrive(vehicleId: string, id: number): Promise<StoredDrive | undefined> {
    this.open();
    const r = this.s.one.get(vehicleId.toUpperCase(), 'drive', id);
    return r && toStoredDrive(r);
  }

  async listCharges(vehicleId: string, from: number, to: number, withSamples = false): Promise<StoredCharge[]> {
    return this.list(vehicleId, 'charge', from, to, withSamples, toStoredCharge);
  }

  async getCharge(vehicleId: string, id: number): Promise<StoredCharge | undefined> {
    this.open();
    const r = this.s.one.get(vehicleId.toUpperCase(), 'charge', id);
    return r && toStoredCharge(r);
  }

  async retagSessions(vehicleId: string, sessions: readonly StoredSession[]): Promise<void> {
    this.open();
    if (sessions.length > 0) this.retagTx(vehicleId.toUpperCase(), sessions);
  }

  // --- places ---

  async listPlaces(ownerId: number): Promise<Place[]> {
    this.open();
    return this.s.places.all(ownerId).map(toPlace);
  }

  async addPlace(ownerId: number, place: PlaceInput): Promise<Place> {
    this.open();
    const body = placeBody(place);
    try {
      return toPlace({ id: this.s.addPlace.get(ownerId, body)!.id, body });
    } catch (err) {
      if (isForeignKeyViolation(err)) throw new VtsError('VTS_ERR_UNKNOWN_USER', `owner id ${ownerId}`);
      throw err;
    }
  }

  async updatePlace(ownerId: number, id: number, place: PlaceInput): Promise<Place | undefined> {
    this.open();
    const body = placeBody(place);
    return this.s.updatePlace.run(body, ownerId, id).changes > 0 ? toPlace({ id, body }) : undefined;
  }

  async removePlace(ownerId: number, id: number): Promise<boolean> {
    this.open();
    return this.s.removePlace.run(ownerId, id).changes > 0;
  }
}
