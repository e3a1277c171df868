/**
 * The session tracker: follows one vehicle's records and tells which drives and charges they
 * make (docs/web-api.md "Drives and charges"). Pure and deterministic: the same records give the
 * same sessions whether fed live or replayed by a rebuild. Its state is JSON, saved as the
 * vehicle's checkpoint (src/store/drives-store.ts) and given back to the constructor after a
 * restart or a failover.
 *
 * How it stays the same in any order: the live `S`, `D`, `L` records come in time order (live.ts
 * finds drives, charges and inferred charges from them alone); the firmware logs may come late and
 * are kept as a set (log-sessions.ts pairs them); the sessions are a function of those parts
 * (merge.ts), worked out again whenever a part changes, and the tracker emits the difference from
 * what it emitted before (a put for a new or changed session, a remove for a key that went).
 *
 * - Replays: a live record older than the newest live record, or of the same second and already
 *   seen (same code and data), is ignored; a log already kept (same type, time and data) too.
 * - Parts are kept `RETAIN` seconds (7 days) after their session ended, at most `MAX_KEPT` sessions
 *   of each kind, so that a late log still joins its live session; then they are final and
 *   forgotten (the store keeps them). A log older than that when it arrives is ignored.
 */
import { parseGridLog, parseTripLog } from './log-fields.js';
import { gridCharges, tripDrives, type LogPart } from './log-sessions.js';
import { emptyLive, expire, live, liveBusy, publish, PUBLISH_EVERY, type LiveState } from './live.js';
import { isTextHash, textHash } from '../text-hash.js';
import {
  chargeSession,
  driveSession,
  group,
  groupEnd,
  signature,
  type ChargeMember,
  type DriveMember,
  type Group,
} from './merge.js';
import type { Session, SessionKind, SessionOp } from './types.js';

/** The firmware's trip and charge logs, as historical record types (docs/protocol/messages.md §3.11). */
export const TRIP_LOG = '*-LOG-Trip';
export const GRID_LOG = '*-LOG-Grid';

/** The record types the tracker follows: live `S`, `D`, `L` and the two logs. */
export const TRACKED_TYPES: readonly string[] = ['S', 'D', 'L', TRIP_LOG, GRID_LOG];

/** Seconds a session's parts are kept after it ended (a late log may still join it). */
export const RETAIN = 7 * 86_400;
/** The most sessions of each kind whose parts are kept. */
export const MAX_KEPT = 300;

/**
 * One record: a live message (`code` S, D or L; `data` without the code; `time` when received) or
 * a firmware log (`code` TRIP_LOG or GRID_LOG; `data` the fields after the lifetime; `time` the
 * record's own time, arrival plus its negative age).
 */
export interface SessionInput {
  code: string;
  time: number;
  data: string;
}

interface LogRecord {
  c: string;
  t: number;
  d: string;
}

interface State {
  v: 1;
  lastTime: number;
  /** `code|textHash(data)` of the live records of the newest live second (a checkpoint from before held `code|data`). */
  seenAt: string[];
  live: LiveState;
  /** Kept logs, in time order. */
  logs: LogRecord[];
  /** `kind|key` → signature of what was put. */
  emitted: Record<string, string>;
}

const LIVE_CODES = new Set(['S', 'D', 'L']);

/** Stands in for the state while a tracker rests (never read: every way in, `derive` too, wakes it first; frozen all through, so a way that did not would throw rather than share it). */
const RESTING: State = Object.freeze({
  v: 1,
  lastTime: 0,
  seenAt: Object.freeze([]) as unknown as string[],
  live: Object.freeze({ ...emptyLive(), drives: Object.freeze([]), charges: Object.freeze([]), inferred: Object.freeze([]) }) as unknown as LiveState,
  logs: Object.freeze([]) as unknown as LogRecord[],
  emitted: Object.freeze({}),
}) as State;

/** The memo of a tracker that has made no session yet, or rests (only read, and replaced whole by `derive`). */
const NO_MEMO: ReadonlyMap<string, Memo> = new Map();

function isState(x: unknown): x is State {
  if (typeof x !== 'object' || x === null) return false;
  const s = x as Partial<State>;
  return s.v === 1 && typeof s.lastTime === 'number' && Array.isArray(s.logs) && typeof s.live === 'object' && s.live !== null && typeof s.emitted === 'object';
}

/** A `seenAt` entry in today's form: one of an older checkpoint (`code|data`) is hashed. */
function seenId(entry: unknown): string {
  const e = String(entry);
  const bar = e.indexOf('|');
  return bar < 0 || isTextHash(e.slice(bar + 1)) ? e : `${e.slice(0, bar)}|${textHash(e.slice(bar + 1))}`;
}

const logId = (r: LogRecord): string => `${r.c}|${r.t}|${r.d}`;
const byTime = (a: LogRecord, b: LogRecord): number => a.t - b.t || (a.c < b.c ? -1 : a.c > b.c ? 1 : a.d < b.d ? -1 : a.d > b.d ? 1 : 0);

export class SessionTracker {
  private s: State;
  /** The state as JSON while the tracker rests (`rest()`): a parked car's tracker takes a third of the memory so. */
  private resting: string | null = null;
  private restingLastTime = 0;
  private logIds: Set<string> | null = null;
  /** The sessions the logs make, until the logs change (not saved: worked out again after a restore). */
  private logParts: LogParts | null = null;
  /** Per emitted session, the parts it was made of and its signature (a session whose parts are the same objects is not made again). */
  private memo: ReadonlyMap<string, Memo> = NO_MEMO;

  private readonly publishEvery: number;

  /**
   * `state`: what `toJSON()` gave (parsed); anything else starts afresh. `publishEvery`: seconds
   * of data between two puts of an open session (default 60); a rebuild, which keeps only the
   * final sessions, may pass Infinity (open sessions are then put when they start, at each tick
   * and when they end), which makes it several times faster and changes no final session.
   */
  constructor(state?: unknown, options: { publishEvery?: number } = {}) {
    this.publishEvery = options.publishEvery ?? PUBLISH_EVERY;
    this.s = isState(state)
      ? { ...state, seenAt: Array.isArray(state.seenAt) ? state.seenAt.map(seenId) : [], live: { ...emptyLive(), ...state.live } }
      : { v: 1, lastTime: 0, seenAt: [], live: emptyLive(), logs: [], emitted: {} };
  }

  /**
   * Keeps the state as its JSON until the next record or tick, and drops what is worked out again
   * from it (the sessions' memo, the logs' index): for a tracker that is not busy (nothing open,
   * nothing waiting on time), which a parked car's is between its records. No effect on a busy one.
   */
  rest(): void {
    if (this.resting !== null || this.busy) return;
    this.restingLastTime = this.s.lastTime;
    this.resting = JSON.stringify(this.s);
    this.s = RESTING;
    this.memo = NO_MEMO;
    this.logIds = null;
    this.logParts = null;
  }

  /** The state back from its JSON, as a restart restores a checkpoint (the memo is made again at the next change). */
  private wake(): State {
    if (this.resting !== null) {
      this.s = JSON.parse(this.resting) as State;
      this.resting = null;
    }
    return this.s;
  }

  /** Takes one record; returns the session changes it makes (often none). */
  feed(input: SessionInput): SessionOp[] {
    const { code, time: t, data } = input;
    if (!Number.isFinite(t)) return [];
    const s = this.wake();
    if (LIVE_CODES.has(code)) {
      const l = s.live;
      const id = `${code}|${textHash(data)}`;
      // a second holds a few records (the recorder and the history give the last of each type)
      if (t < l.lastLive || (t === l.lastLive && s.seenAt.includes(id))) return [];
      if (t > l.lastLive) s.seenAt = [];
      s.seenAt.push(id);
      live(l, code, t, data, this.publishEvery);
      s.lastTime = Math.max(s.lastTime, t);
      return l.dirty ? this.derive() : [];
    }
    if (code !== TRIP_LOG && code !== GRID_LOG) return [];
    if (t < s.lastTime - RETAIN) return [];
    const rec: LogRecord = { c: code, t, d: data };
    const ids = (this.logIds ??= new Set(s.logs.map(logId)));
    if (ids.has(logId(rec))) return [];
    ids.add(logId(rec));
    let i = s.logs.length;
    while (i > 0 && byTime(s.logs[i - 1] as LogRecord, rec) > 0) i--;
    s.logs.splice(i, 0, rec);
    this.logParts = null;
    s.lastTime = Math.max(s.lastTime, t);
    return this.derive();
  }

  /** The passing of time without records (a drive silent 15 minutes ends, a stopped charge that did not resume ends). */
  tick(now: number): SessionOp[] {
    const l = this.wake().live;
    if (now > l.lastLive) expire(l, now);
    publish(l, now, true);
    return l.dirty ? this.derive() : [];
  }

  /** The time of the newest record fed (0 before any). */
  get lastTime(): number {
    return this.resting === null ? this.s.lastTime : this.restingLastTime;
  }

  /** Whether a session is open or a decision waits on time (the recorder ticks such trackers); never while resting. */
  get busy(): boolean {
    return this.resting === null && (liveBusy(this.s.live) || this.s.live.dirty);
  }

  /** Whether it rests (`rest()`) now. */
  get isResting(): boolean {
    return this.resting !== null;
  }

  /** The state to save (JSON-serialisable; serialise it before the next feed). */
  toJSON(): unknown {
    return this.wake();
  }

  /** Works the sessions out again from the parts and returns the difference from what was emitted. */
  private derive(): SessionOp[] {
    const s = this.wake();
    const l = s.live;
    l.dirty = false;
    const horizon = s.lastTime - RETAIN;
    const { trips, grids, tripParts, gridParts } = (this.logParts ??= logParts(s.logs));
    const memo = new Map<string, Memo>();

    const ops: SessionOp[] = [];
    const next: Record<string, string> = {};
    const final = new Set<object>();
    const keepLogs = new Set<number>();
    const units = l.units ?? 'K';

    const run = <M extends DriveMember | ChargeMember>(
      kind: SessionKind,
      groups: Group<M>[],
      parts: LogPart<M>[],
      index: number[],
      make: (g: Group<M>) => Session,
    ): void => {
      const open = groups.filter((g) => groupEnd(g) === null || (groupEnd(g) as number) >= horizon);
      const kept = new Set(open.slice(-MAX_KEPT));
      for (const g of groups) {
        const id = `${kind}|${g.key}`;
        if (!kept.has(g) && groupEnd(g) !== null) {
          for (const m of [g.log, ...g.lives, ...g.inferred]) if (m) final.add(m);
          continue;
        }
        const used: object[] = [g.log, ...g.lives, ...g.inferred].filter((m): m is M => m !== null);
        const before = this.memo.get(id);
        let sig: string;
        if (before && before.parts.length === used.length && before.parts.every((m, i) => m === used[i])) sig = before.sig;
        else {
          const session = make(g);
          sig = signature(session);
          if (s.emitted[id] !== sig) ops.push({ op: 'put', session });
        }
        memo.set(id, { parts: used, sig });
        next[id] = sig;
        if (g.log) {
          const p = parts.find((x) => x.member === g.log) as LogPart<M>;
          for (let i = p.first; i <= p.last; i++) keepLogs.add(index[i] as number);
        }
      }
      for (const id of Object.keys(s.emitted)) {
        if (!id.startsWith(kind + '|') || id in next) continue;
        const key = id.slice(kind.length + 1);
        const finalised = groups.some((g) => g.key === key && !kept.has(g) && groupEnd(g) !== null);
        if (!finalised) ops.push({ op: 'remove', session: kind, key });
      }
    };

    const liveDrives = l.drive?.snap ? [...l.drives, l.drive.snap] : l.drives;
    const drives = group(liveDrives, members(tripParts));
    run('drive', drives, tripParts, trips, (g) => driveSession(g, units));
    const liveCharges = l.charge?.snap ? [...l.charges, l.charge.snap] : l.charges;
    const charges = group(liveCharges, members(gridParts), l.inferred);
    run('charge', charges, gridParts, grids, (g) => chargeSession(g));

    s.emitted = next;
    this.memo = memo;
    if (final.size) {
      l.drives = l.drives.filter((m) => !final.has(m));
      l.charges = l.charges.filter((m) => !final.has(m));
      l.inferred = l.inferred.filter((m) => !final.has(m));
    }
    if (s.logs.some((r, i) => r.t < horizon && !keepLogs.has(i))) {
      s.logs = s.logs.filter((r, i) => r.t >= horizon || keepLogs.has(i));
      this.logIds = null;
      this.logParts = null;
    }
    return ops;
  }
}

interface Memo {
  parts: object[];
  sig: string;
}

interface LogParts {
  /** Indices in the kept logs of the trip and grid logs, in time order. */
  trips: number[];
  grids: number[];
  tripParts: LogPart<DriveMember>[];
  gridParts: LogPart<ChargeMember>[];
}

function logParts(logs: readonly LogRecord[]): LogParts {
  const trips: number[] = [];
  const grids: number[] = [];
  logs.forEach((r, i) => (r.c === TRIP_LOG ? trips : grids).push(i));
  const at = (i: number): LogRecord => logs[i] as LogRecord;
  return {
    trips,
    grids,
    tripParts: tripDrives(trips.map((i) => parseTripLog(at(i).t, at(i).d))),
    gridParts: gridCharges(grids.map((i) => parseGridLog(at(i).t, at(i).d))),
  };
}

function members<M>(parts: readonly LogPart<M>[]): M[] {
  return parts.flatMap((p) => (p.member ? [p.member] : []));
}
