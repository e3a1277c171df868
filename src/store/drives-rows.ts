/**
 * What both databases' drives stores (sqlite-drives.ts, pg-drives.ts) do the same way: how a
 * session and a place become a row and back, the list query, and the re-tagging of a stored body.
 *
 * A session's row (`sessions`): its vehicle, kind and key (unique together), start and end (the
 * columns the list query and its index use), `body` (the session as JSON without its path or
 * samples), `rev` (bumped at every write of the row: what a list's memo checks); its `detail` (the path or the samples as JSON) in a row of `session_details`, read only
 * when asked for. A place's row: its owner and `body` (the PlaceInput as JSON). JSON keeps numbers
 * as they were written.
 */
import type { ChargeSession, DriveSession, Place, PlaceInput, Session, SessionKind } from '../core/drives/types.js';
import type { StoredCharge, StoredDrive, StoredSession } from './drives-store.js';

/**
 * The end of an open session in the list index and query: past every real time, so that "ends at
 * or after `from`" is one range of the index, open sessions at its top.
 */
export const OPEN_END = 9_000_000_000_000_000;

/** The expression the list index is on and the list query ranges over (the same text on both databases). */
export const END_KEY = `coalesce(end_time, ${OPEN_END})`;

/** A session as its row's columns. */
export interface SessionColumns {
  kind: SessionKind;
  key: string;
  start: number;
  end: number | null;
  body: string;
  detail: string;
}

export function sessionColumns(s: Session): SessionColumns {
  // a StoredSession passed in: its id and vehicle are the row's, not the body's
  const { id: _id, vehicleId: _vid, ...rest } = s as Session & { id?: unknown; vehicleId?: unknown };
  let body: string;
  let detail: string;
  if (rest.session === 'drive') {
    const { path, ...fields } = rest;
    body = JSON.stringify(fields);
    detail = JSON.stringify(path ?? []);
  } else {
    const { samples, ...fields } = rest;
    body = JSON.stringify(fields);
    detail = JSON.stringify(samples ?? []);
  }
  // the columns in whole seconds (bigint on PostgreSQL), the span widened to hold a fraction; the body keeps the times as given
  return { kind: rest.session, key: rest.key, start: Math.floor(rest.start), end: rest.end === null ? null : Math.ceil(rest.end), body, detail };
}

/** `sessions` with one entry per kind and key (the last one given wins, as upserts one after the other would). */
export function uniqueByKey(sessions: readonly Session[]): SessionColumns[] {
  const byKey = new Map<string, SessionColumns>();
  for (const s of sessions) {
    const c = sessionColumns(s);
    const k = `${c.kind}\0${c.key}`;
    byKey.delete(k);
    byKey.set(k, c);
  }
  return [...byKey.values()];
}

/** A session row as read back: `detail` null when it was not read. */
export interface SessionRow {
  id: number;
  vehicle_id: string;
  body: string;
  detail?: string | null;
}

/** A row of the list's first step: which sessions, at which revision (bumped at every write of the row). */
export interface SessionRevision {
  id: number;
  rev: number;
}

/** A row of the list's second step: the sessions not remembered at their revision. */
export interface RevisedRow extends SessionRow {
  rev: number;
}

export function toStoredDrive(r: SessionRow): StoredDrive {
  const body = JSON.parse(r.body) as Omit<DriveSession, 'path'>;
  const path = r.detail ? (JSON.parse(r.detail) as DriveSession['path']) : [];
  return { ...body, id: r.id, vehicleId: r.vehicle_id, path };
}

export function toStoredCharge(r: SessionRow): StoredCharge {
  const body = JSON.parse(r.body) as Omit<ChargeSession, 'samples'>;
  const samples = r.detail ? (JSON.parse(r.detail) as ChargeSession['samples']) : [];
  return { ...body, id: r.id, vehicleId: r.vehicle_id, samples };
}

const MEMO_LIMIT = 20_000;

/**
 * The sessions a store has read for its lists (without path or samples), by row id and revision:
 * a list of a year of drives (2,000 rows) is read again and again by the dashboard, and reading
 * the bodies and making the objects was most of its cost. A list first reads the ids and revisions
 * in its range, then the rows of those not remembered at that
 * revision (on SQLite from the index alone). One per store (ids are only unique within a database); bounded, the oldest entries
 * leave first. The objects are frozen and shared: whoever wants a changed one makes a copy (as
 * tagSession does), and the HTTP layer may key its own caches on them.
 */
export class SessionMemo {
  private readonly memo = new Map<number, { rev: number; session: StoredSession }>();

  /**
   * The sessions of the list, in its order: those remembered at their revision at once, the others
   * from `fetch` (given their ids). When the rows fetched are not those the revisions named (a
   * write came between the two reads), the list is read again in one query (`whole`), so that it
   * is always one state of the table.
   */
  async list<S extends StoredSession>(
    revisions: readonly SessionRevision[],
    fetch: (ids: number[]) => RevisedRow[] | Promise<RevisedRow[]>,
    make: (r: SessionRow) => S,
    whole: () => SessionRow[] | Promise<SessionRow[]>,
  ): Promise<S[]> {
    const out: (S | undefined)[] = [];
    const missing = new Map<number, number>();
    for (const r of revisions) {
      const hit = this.memo.get(r.id);
      if (hit !== undefined && hit.rev === r.rev) out.push(hit.session as S);
      else {
        missing.set(r.id, out.length);
        out.push(undefined);
      }
    }
    if (missing.size === 0) return out as S[];
    const rows = await fetch([...missing.keys()]);
    let got = 0;
    for (const row of rows) {
      const at = missing.get(row.id);
      if (at === undefined || row.rev !== revisions[at]!.rev) break;
      out[at] = this.remember(row, make);
      got++;
    }
    if (got !== missing.size) return (await whole()).map(make);
    return out as S[];
  }

  private remember<S extends StoredSession>(row: RevisedRow, make: (r: SessionRow) => S): S {
    const session = Object.freeze(make(row)) as S;
    if (this.memo.has(row.id)) this.memo.delete(row.id);
    else if (this.memo.size >= MEMO_LIMIT) this.memo.delete(this.memo.keys().next().value as number);
    this.memo.set(row.id, { rev: row.rev, session });
    return session;
  }
}

/**
 * [from, to] of a list in whole seconds within the range of the columns (a fraction rounded
 * inwards, infinities to the ends), undefined when nothing can overlap it (NaN).
 */
export function listRange(from: number, to: number): [number, number] | undefined {
  if (Number.isNaN(from) || Number.isNaN(to)) return undefined;
  const within = (t: number): number => Math.min(OPEN_END, Math.max(-OPEN_END, t));
  return [within(Math.ceil(from)), within(Math.floor(to))];
}

/**
 * The list query: the vehicle's sessions of a kind that overlap [from, to] (start ≤ to and
 * (end ?? +∞) ≥ from), oldest first, with their path or samples when `withDetail`; `p(i)` writes
 * the i-th parameter (1-based: vehicle, kind, from, to). The index `sessions_span` (vehicle_id,
 * kind, END_KEY, start_time) makes it one range scan from `from` on, the start checked in the
 * index: over the recent past (the usual question) it reads the matching rows and the open ones
 * only. (No column name is in both tables: they need no qualifying, and END_KEY is the index's
 * expression word for word.)
 */
export function listSql(p: (i: number) => string, withDetail: boolean): string {
  return `SELECT id, vehicle_id, body${withDetail ? ', detail FROM sessions LEFT JOIN session_details ON session_id = id' : ' FROM sessions'}
   WHERE vehicle_id = ${p(1)} AND kind = ${p(2)} AND ${END_KEY} >= ${p(3)} AND start_time <= ${p(4)}
   ORDER BY start_time, id`;
}

/** The first step of a list without details (SessionMemo): the same sessions as listSql, only their ids and revisions (on SQLite from the index alone). */
export function revisionsSql(p: (i: number) => string): string {
  return `SELECT id, rev FROM sessions
   WHERE vehicle_id = ${p(1)} AND kind = ${p(2)} AND ${END_KEY} >= ${p(3)} AND start_time <= ${p(4)}
   ORDER BY start_time, id`;
}

/** One session of a kind by id within its vehicle, with its path or samples. */
export function oneSql(p: (i: number) => string): string {
  return `SELECT id, vehicle_id, body, detail FROM sessions LEFT JOIN session_details ON session_id = id
   WHERE vehicle_id = ${p(1)} AND kind = ${p(2)} AND id = ${p(3)}`;
}

/**
 * The stored body with the place and cost fields of `s` (drive: fromPlace, toPlace; charge:
 * place, cost, currency), everything else as stored; undefined when `s` is of another kind than the row.
 */
export function retaggedBody(storedBody: string, kind: string, s: StoredSession): string | undefined {
  if (s.session !== kind) return undefined;
  const body = JSON.parse(storedBody) as Record<string, unknown>;
  if (s.session === 'drive') {
    body.fromPlace = s.fromPlace;
    body.toPlace = s.toPlace;
  } else {
    body.place = s.place;
    body.cost = s.cost;
    body.currency = s.currency;
  }
  return JSON.stringify(body);
}

/** A place's body: the fields of a PlaceInput, nothing else. */
export function placeBody(p: PlaceInput): string {
  const input: PlaceInput = {
    name: p.name,
    lat: p.lat,
    lon: p.lon,
    radius: p.radius,
    timezone: p.timezone,
    currency: p.currency,
    pricePerKwh: p.pricePerKwh,
    pricePerMinute: p.pricePerMinute,
    sessionFee: p.sessionFee,
    timeOfUse: p.timeOfUse.map((w) => ({ from: w.from, to: w.to, pricePerKwh: w.pricePerKwh })),
  };
  return JSON.stringify(input);
}

export interface PlaceRow {
  id: number;
  body: string;
}

export function toPlace(r: PlaceRow): Place {
  return { ...(JSON.parse(r.body) as PlaceInput), id: r.id };
}
