/**
 * The session recorder: hears every record a car sends (the hub's car-data observers, on the node
 * the car is connected to), feeds it to the vehicle's tracker (src/core/drives/tracker.ts) and
 * stores the drives and charges it makes, tagged with the owner's places and priced.
 *
 * Restarts and failovers: the tracker's state is checkpointed with every session change (and at
 * least every `checkpointSeconds` of data), in the same transaction as the change and guarded by a
 * sequence number (src/store/drives-store.ts). A tracker starting for a vehicle loads the
 * checkpoint and feeds again the stored history since it (the record that woke it is in that
 * history already), so a session open at a crash continues, and nothing is recorded twice. When
 * another writer got there first (the car moved to another node and back, a rebuild ran), the
 * commit is refused and the tracker starts again the same way. A vehicle without a checkpoint (a
 * server upgraded to this version, a vehicle imported) is rebuilt from its history first.
 *
 * Live records are collapsed as the stored history keeps them: of each type, the last one of each
 * second; a vehicle's second is fed (`S`, `D`, then `L`, the order a rebuild reads them in) when a
 * record of a later second or a log comes, and at the latest a second later. So the tracker sees
 * live what a rebuild or a restart sees from the history, and a car that sends hundreds of
 * records a second costs it no more than one that sends three.
 *
 * Records that arrive out of time order as history of the live types (a module sending its past
 * `S`/`D`/`L` as `h` records: `vts module --simulate day`) cannot be fed to a tracker that is
 * already past them: the vehicle is rebuilt a few seconds after the last of them. Firmware logs
 * arriving late are fed as they come; the tracker merges them.
 */
import type { Logger } from 'pino';
import { GRID_LOG, SessionTracker, TRIP_LOG, type SessionInput } from '../core/drives/tracker.js';
import { SlicedSweep, slicesFor } from '../core/sliced-sweep.js';
import { tagSession } from '../core/drives/places.js';
import type { DriveSession, SessionOp } from '../core/drives/types.js';
import type { CarDataEvent, CarDataObserver } from '../hub/hub.js';
import { logStoreFailure } from '../store/outage.js';
import type { Store } from '../store/store.js';
import { TurnPacer } from '../util/turn-pacer.js';
import { trackedHistory } from './history-stream.js';
import { rebuildVehicle } from './rebuild.js';

export interface RecorderOptions {
  /** Seconds between ticks of the trackers with an open session (default 60). */
  tickSeconds?: number;
  /** Seconds of data after which a tracker is checkpointed even without a session change (default 900). */
  checkpointSeconds?: number;
  /** Seconds after the last out-of-order record before its vehicle is rebuilt (default 10). */
  rebuildDelaySeconds?: number;
  /** Seconds without a record after which an idle tracker leaves memory (default 3600). */
  idleSeconds?: number;
}

/** Hears each finished drive once its commit is done (the alerts' drive reports); a drive may be heard again when it is stored again. */
export type DriveListener = (vehicleId: string, ownerId: number, drive: DriveSession) => void;

interface Track {
  readonly vehicleId: string;
  ownerId: number;
  tracker: SessionTracker | null;
  seq: number;
  /** The tracker's lastTime at its last checkpoint. */
  savedAt: number;
  /** The server's time of the last record heard. */
  heard: number;
  /** Everything done for the vehicle, in order. */
  chain: Promise<void>;
  /** Records waiting in the chain (for a load): later ones wait behind them. */
  waiting: number;
  rebuild?: NodeJS.Timeout;
  /** The live records of the second `pendingAt` not fed yet: the last of each type. */
  pending: Map<string, string> | null;
  pendingAt: number;
}

/** Seconds without a record after which a tick lets a tracker with nothing open rest (SessionTracker.rest). */
const REST_AFTER_SECONDS = 10;

/** The live types, in the order a second's records are fed (that of TRACKED_TYPES, as a rebuild reads them). */
const LIVE_ORDER = ['S', 'D', 'L'] as const;
const LIVE = new Set<string>(LIVE_ORDER);
const LOGS = new Map([TRIP_LOG, GRID_LOG].map((t) => [t.toLowerCase(), t]));

export class SessionRecorder {
  private readonly tracks = new Map<string, Track>();
  private readonly tickSeconds: number;
  private readonly checkpointSeconds: number;
  private readonly rebuildDelay: number;
  private readonly idleSeconds: number;
  private timer: NodeJS.Timeout | undefined;
  private flusher: NodeJS.Timeout | undefined;
  /** The vehicles with live records not fed yet. */
  private readonly unfed = new Set<Track>();
  /** Loads (and rebuilds) of trackers, a few at a time with the event loop's turns between (a reconnect storm loads thousands). */
  private readonly loads = new TurnPacer();
  /** Commits, a few at a time in short slices: a parked fleet's records of a second are flushed at once. */
  private readonly writes = new TurnPacer(8, 2);
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    private readonly seconds: () => number,
    options: RecorderOptions = {},
  ) {
    this.tickSeconds = options.tickSeconds ?? 60;
    this.checkpointSeconds = options.checkpointSeconds ?? 900;
    this.rebuildDelay = options.rebuildDelaySeconds ?? 10;
    this.idleSeconds = options.idleSeconds ?? 3600;
  }

  private driveListeners: readonly DriveListener[] = [];

  /** Hears the finished drives stored from now on; the returned function stops it. */
  onDrive(listener: DriveListener): () => void {
    this.driveListeners = [...this.driveListeners, listener];
    return () => {
      this.driveListeners = this.driveListeners.filter((l) => l !== listener);
    };
  }

  private tellDrives(track: Track, ops: readonly SessionOp[]): void {
    for (const op of ops) {
      if (op.op !== 'put' || op.session.session !== 'drive' || op.session.end === null) continue;
      for (const l of this.driveListeners) {
        try {
          l(track.vehicleId, track.ownerId, op.session);
        } catch (err) {
          this.log.error({ err, vehicle: track.vehicleId }, 'drive listener failed');
        }
      }
    }
  }

  /** The observer to register with `hub.onCarData`; starts the ticks. */
  observer(): CarDataObserver {
    if (!this.timer && !this.closed) {
      // every tracker once a tick, a slice of them each second (src/core/sliced-sweep.ts)
      const slices = slicesFor(this.tickSeconds * 1000, 60);
      const sweep = new SlicedSweep(() => this.tracks.values(), () => this.tracks.size, slices);
      this.timer = setInterval(() => this.tickSlice(sweep), (this.tickSeconds * 1000) / slices);
      this.timer.unref();
      this.flusher = setInterval(() => this.flushAll(this.seconds()), 1000);
      this.flusher.unref();
    }
    return (event) => this.hear(event);
  }

  /** Takes one committed record. */
  hear(event: CarDataEvent): void {
    if (this.closed) return;
    const code = event.historical ? (LOGS.get(event.code.toLowerCase()) ?? event.code) : event.code;
    const live = LIVE.has(code);
    if (!live && !LOGS.has(code.toLowerCase())) return;
    const track = this.track(event.vehicleId, event.ownerId);
    // a live record's time is the time it was received
    track.heard = live && !event.historical ? Math.max(track.heard, event.time) : this.seconds();
    if (live && event.historical) {
      this.rebuildSoon(track);
      return;
    }
    if (live) {
      if (track.pending && track.pendingAt !== event.time) this.flush(track);
      (track.pending ??= new Map()).set(code, event.data);
      track.pendingAt = event.time;
      this.unfed.add(track);
      return;
    }
    this.flush(track);
    this.feed(track, { code, time: event.time, data: event.data });
  }

  /** Feeds the vehicle's pending second. */
  private flush(track: Track): void {
    const pending = track.pending;
    if (!pending) return;
    track.pending = null;
    this.unfed.delete(track);
    for (const code of LIVE_ORDER) {
      const data = pending.get(code);
      if (data !== undefined) this.feed(track, { code, time: track.pendingAt, data });
    }
  }

  /** Feeds every pending second (before `now`: only the seconds that are over). */
  private flushAll(now = Infinity): void {
    for (const track of [...this.unfed]) if (track.pendingAt < now) this.flush(track);
  }

  private feed(track: Track, input: SessionInput): void {
    // the usual case: the tracker is in memory and nothing waits before this record; fed at once
    // (no promise per record), only what it changes waits for the store
    if (track.tracker && track.waiting === 0) return this.fed(track, track.tracker, track.tracker.feed(input));
    // else after the load (or the records that wait for it), in order
    track.waiting++;
    this.then(track, async () => {
      try {
        const tracker = track.tracker ?? (await this.loads.run(() => this.load(track)));
        this.fed(track, tracker, tracker.feed(input));
      } finally {
        track.waiting--;
      }
    });
  }

  /** Resolves once everything given to the recorder so far is done (tests, shutdown). */
  async settled(): Promise<void> {
    this.flushAll();
    let chains: Promise<void>[] = [];
    // a step may queue further steps (a reload after a refused commit): wait until none are new
    do {
      chains = [...this.tracks.values()].map((t) => t.chain);
      await Promise.all(chains);
    } while ([...this.tracks.values()].some((t, i) => t.chain !== chains[i]));
  }

  /** Waits for what is under way, checkpoints what is not saved yet, and stops. */
  async close(): Promise<void> {
    this.flushAll();
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.flusher) clearInterval(this.flusher);
    for (const track of this.tracks.values()) {
      if (track.rebuild) clearTimeout(track.rebuild);
      this.then(track, async () => {
        if (track.tracker) this.fed(track, track.tracker, [], true);
      });
    }
    await this.settled();
  }

  /** Ticks every tracker that waits on time, lets idle ones go, and lets quiet ones rest (SessionTracker.rest). */
  tickAll(): void {
    this.flushAll();
    const now = this.seconds();
    for (const track of this.tracks.values()) this.tickOne(track, now);
  }

  /** `tickAll` for the next slice of the trackers: each is fed its pending second first. */
  private tickSlice(sweep: SlicedSweep<Track>): void {
    const now = this.seconds();
    sweep.step((track) => {
      this.flush(track);
      this.tickOne(track, now);
    });
  }

  private tickOne(track: Track, now: number): void {
    const tracker = track.tracker;
    if (tracker?.busy && track.waiting === 0) {
      this.fed(track, tracker, tracker.tick(now));
    } else if (tracker?.busy) {
      this.then(track, async () => {
        if (track.tracker) this.fed(track, track.tracker, track.tracker.tick(now));
      });
    } else if (now - track.heard >= this.idleSeconds && !track.rebuild && track.waiting === 0) {
      if (tracker) this.fed(track, tracker, [], true);
      this.then(track, async () => {
        if (this.seconds() - track.heard >= this.idleSeconds && track.waiting === 0) this.tracks.delete(track.vehicleId);
      });
    } else if (tracker && track.waiting === 0 && now - track.heard >= REST_AFTER_SECONDS) {
      // quiet and nothing open: its state as JSON until the next record (a parked car; at most
      // one rest a tick and one wake a record)
      tracker.rest();
    }
  }

  private track(vehicleId: string, ownerId: number): Track {
    let track = this.tracks.get(vehicleId);
    if (!track) {
      track = { vehicleId, ownerId, tracker: null, seq: 0, savedAt: 0, heard: 0, chain: Promise.resolve(), waiting: 0, pending: null, pendingAt: 0 };
      this.tracks.set(vehicleId, track);
    }
    track.ownerId = ownerId;
    return track;
  }

  /** Runs `step` after everything before it for the vehicle; a failure is logged and drops the tracker (it reloads). */
  private then(track: Track, step: () => Promise<void>): void {
    track.chain = track.chain.then(step).catch((err: unknown) => {
      track.tracker = null;
      // a failure of a database outage is counted in the outage's own log line
      logStoreFailure(this.log, 'error', err, { vehicle: track.vehicleId }, 'recording drives and charges failed; the vehicle starts again from its checkpoint');
    });
  }

  /**
   * After a feed: the operations, with the tracker's state as it is now (so the checkpoint always
   * matches the operations stored with it), go to the store after what is queued before them; a
   * checkpoint alone when one is due.
   */
  private fed(track: Track, tracker: SessionTracker, ops: readonly SessionOp[], unsaved = false): void {
    const due = unsaved ? tracker.lastTime > track.savedAt : tracker.lastTime - track.savedAt >= this.checkpointSeconds;
    if (ops.length === 0 && !due) return;
    const state = JSON.stringify(tracker.toJSON());
    const at = tracker.lastTime;
    track.savedAt = at;
    this.then(track, () => this.writes.run(() => this.commit(track, tracker, state, at, ops)));
  }

  /** The vehicle's tracker from its checkpoint and the history since (rebuilt first when it has none). */
  private async load(track: Track): Promise<SessionTracker> {
    let checkpoint = await this.store.drives.loadTracker(track.vehicleId);
    if (!checkpoint) {
      await rebuildVehicle(this.store, track.vehicleId, this.seconds());
      checkpoint = await this.store.drives.loadTracker(track.vehicleId);
    }
    const tracker = new SessionTracker(checkpoint ? (JSON.parse(checkpoint.state) as unknown) : undefined);
    track.seq = checkpoint?.seq ?? 0;
    track.savedAt = tracker.lastTime;
    const ops: SessionOp[] = [];
    for await (const input of trackedHistory(this.store, track.vehicleId, tracker.lastTime)) ops.push(...tracker.feed(input));
    // in use only once it has caught up (records heard meanwhile wait in the queue, after this)
    track.tracker = tracker;
    // records without a session change are checkpointed when one is due (`fed`), as in a running
    // tracker: a commit per car here was a third of a reconnect storm's server time
    if (ops.length > 0 || tracker.lastTime - track.savedAt >= this.checkpointSeconds) {
      const at = tracker.lastTime;
      track.savedAt = at;
      await this.commit(track, tracker, JSON.stringify(tracker.toJSON()), at, ops);
    }
    return tracker;
  }

  /** Stores the operations with the checkpoint `state` (the tracker's at `at`); reloads when another writer moved on. */
  private async commit(track: Track, from: SessionTracker, state: string, at: number, ops: readonly SessionOp[]): Promise<void> {
    // a tracker dropped since (a failure, another writer): the one that replaced it caught up from the stored history
    if (track.tracker !== from) return;
    let tagged = ops;
    if (ops.some((op) => op.op === 'put')) {
      const places = await this.store.drives.listPlaces(track.ownerId);
      tagged = ops.map((op) => (op.op === 'put' ? { op: 'put', session: tagSession(op.session, places) } : op));
    }
    const seq = await this.store.drives.commitTracker(track.vehicleId, track.seq, state, tagged);
    if (seq === null) {
      // another writer (another node, a rebuild) moved on: start again from its checkpoint
      this.log.info({ vehicle: track.vehicleId }, 'drives and charges: the checkpoint moved on elsewhere; reloading');
      track.tracker = null;
      await this.load(track);
      return;
    }
    track.seq = seq;
    track.savedAt = Math.max(track.savedAt, at);
    this.tellDrives(track, tagged);
  }

  private rebuildSoon(track: Track): void {
    if (track.rebuild) clearTimeout(track.rebuild);
    track.rebuild = setTimeout(() => {
      track.rebuild = undefined;
      this.then(track, async () => {
        const done = await rebuildVehicle(this.store, track.vehicleId, this.seconds());
        track.tracker = null;
        if (done) this.log.info({ vehicle: track.vehicleId, ...done }, 'drives and charges rebuilt after records out of order');
      });
    }, this.rebuildDelay * 1000);
    track.rebuild.unref();
  }
}
