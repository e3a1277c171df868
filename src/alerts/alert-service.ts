/**
 * The alerts the server computes (issue 30, docs/alerts.md): runs each vehicle's rules
 * (src/core/alerts/engine.ts) over what the car does and raises what fires as a notification.
 *
 * Inputs, on the node that holds the car: its live `S`, `D` and `L` records (the hub's car-data
 * observers), its link coming and going (`onLinkChange`), its finished drives (the session
 * recorder), and a timer at the next moment a wait (`after`) can end. The node that leads the
 * `alerts` role also looks, every `scanSeconds` and whenever rules change, at the vehicles with
 * rules whose car is connected nowhere: their engines learn the link is down (since the car was
 * last heard) and run their waits, so `offline` fires with no node holding the car, after a
 * restart as well. It looks again at a car whose presence on another node ends (that node left or
 * was found dead): the scan at the moment it took the lead may have come before.
 *
 * One writer decides: the state is saved before an alert is raised, only over the version it was
 * computed from (src/store/alerts-store.ts). When another writer (another node, or this node's
 * own earlier life) saved since, the state is read again and the input applied to it: what fired
 * is in the state, so nothing fires twice, after a restart or a failover either. An evaluation
 * that changed only readings (SOC, 12 V, position; the engine says so) is saved at most every
 * `saveSeconds`: a car's readings cost no write per record.
 *
 * Which vehicles have rules is one read for the whole fleet, made again when the store's rule
 * counter moves (read every `pollMs`); it tells, per vehicle, whether its rules changed, and only
 * those vehicles read their rules again. A car without rules costs one map lookup per record.
 */
import type { Logger } from 'pino';
import { alertTypeOf, type Alert } from '../core/alerts/alert.js';
import { emptyAlertState, evaluate, nextWake, type AlertContext, type AlertInput, type AlertState, type Evaluation } from '../core/alerts/engine.js';
import type { DriveSession } from '../core/drives/types.js';
import { vehicleLabel } from '../core/push/message.js';
import type { AlertTag } from '../hub/notifications/notifications.js';
import type { CarDataEvent, CarDataObserver } from '../hub/hub.js';
import type { LinkListener } from '../hub/observers/link-observers.js';
import type { StoredRule } from '../store/alerts-store.js';
import { logStoreFailure } from '../store/outage.js';
import type { Store } from '../store/store.js';

export interface AlertServiceDeps {
  store: Store;
  log: Logger;
  seconds(): number;
  onCarData(observer: CarDataObserver): () => void;
  onLinkChange(listener: LinkListener): () => void;
  /** Whether the car is connected to this node (v2 or v3). */
  carHere(vehicleId: string): boolean;
  /** Whether the car is connected to any node. */
  carAnywhere(vehicleId: string): boolean;
  /** Runs for the cluster role (a single node: leads at once). */
  lead(role: string, onChange: (leading: boolean) => void): () => void;
  /** Raises the alert (src/hub/notifications/notifications.ts `alert`): whether it is recorded, once the outbox write is over. */
  raise(ownerId: number, vehicleId: string, alertType: string, text: string, tag: AlertTag): Promise<boolean>;
}

export interface AlertServiceOptions {
  /** Milliseconds between two reads of the rule counter (default 2000). */
  pollMs?: number;
  /** Seconds between two looks at the vehicles connected nowhere (default 60). */
  scanSeconds?: number;
  /** Seconds a state whose deciding part is unchanged may stay unsaved (default 60). */
  saveSeconds?: number;
  /** Seconds without an input after which a vehicle with no wait pending leaves memory (default 3600). */
  idleSeconds?: number;
}

/** A drive that ended longer ago than this is not reported (a rebuild stores old drives again). */
const DRIVE_REPORT_SECONDS = 3600;
/** Saves tried for one input before it is given up (each after reading the other writer's state). */
const SAVE_TRIES = 3;
/** Seconds the names and places the texts and place rules use are believed before they are read again. */
const BASE_SECONDS = 60;
/** Seconds before a vehicle whose evaluation failed (a store error) is tried again. */
const RETRY_SECONDS = 10;
/** The longest single timer (ms): a longer wait is checked again then. */
const MAX_TIMER_MS = 6 * 3600 * 1000;
const LIVE = new Set(['S', 'D', 'L']);

interface Track {
  readonly vehicleId: string;
  ownerId: number;
  /** The rules and what the texts need; null: to read (again). */
  rules: StoredRule[] | null;
  /** The car's name and places for the texts; `units` is set from the state before each evaluation. */
  base: AlertContext | null;
  /** When `base` was read; `gen` counts the times the rules or base were set aside (a read that began before is read again). */
  baseAt: number;
  gen: number;
  /** The state and the version it was loaded or saved at; null: to read. */
  state: AlertState | null;
  version: number;
  savedAt: number;
  chain: Promise<void>;
  /** Steps in the chain not done yet: with none, an input that needs no read nor save is evaluated at once. */
  queued: number;
  timer: NodeJS.Timeout | null;
  wakeAt: number | null;
  /** Whether `timer` and `wakeAt` were set for the state as it is (false after a read or a timer's end). */
  planned: boolean;
  heard: number;
  /** Alerts saved as fired whose outbox write is not known to be over (saved with the state). */
  pending: PendingAlert[];
}

/** An alert saved as fired (with the state) before it is raised, until its notification is recorded. */
interface PendingAlert {
  rule: number;
  kind: Alert['kind'];
  text: string;
  time: number;
  /** Being raised now (not saved). */
  raising?: boolean;
}

/** The state as saved: the engine's, and the alerts fired but not known to be recorded yet. */
type SavedState = AlertState & { pending?: PendingAlert[] };

export class AlertService {
  private readonly tracks = new Map<string, Track>();
  /** Vehicles with rules: their owners, and what changes with their rules. */
  private ruled = new Map<string, { ownerId: number; tag: string }>();
  private rulesVersion = -1;
  private readonly stops: (() => void)[] = [];
  private poller: NodeJS.Timeout | null = null;
  private scanner: NodeJS.Timeout | null = null;
  private leading = false;
  private closed = false;
  private refreshing: Promise<void> | null = null;
  private readonly o: Required<AlertServiceOptions>;

  constructor(
    private readonly deps: AlertServiceDeps,
    options: AlertServiceOptions = {},
  ) {
    this.o = { pollMs: 2000, scanSeconds: 60, saveSeconds: 60, idleSeconds: 3600, ...options };
  }

  /** Reads which vehicles have rules, then hears the cars and starts the timers. */
  async start(): Promise<void> {
    await this.refresh();
    this.stops.push(this.deps.onCarData((e) => this.heard(e)));
    this.stops.push(this.deps.onLinkChange((vehicleId, ownerId) => this.linkChanged(vehicleId, ownerId)));
    this.stops.push(
      this.deps.lead('alerts', (leading) => {
        this.leading = leading;
        if (leading) this.scan();
      }),
    );
    this.poller = setInterval(() => void this.refresh(), this.o.pollMs);
    this.poller.unref();
    this.scanner = setInterval(() => {
      this.sweep();
      if (this.leading) this.scan();
    }, this.o.scanSeconds * 1000);
    this.scanner.unref();
  }

  /** The vehicle's rules changed on this node: read at once. */
  rulesChanged(vehicleId: string): void {
    const t = this.tracks.get(vehicleId.toUpperCase());
    if (t) this.setAside(t);
    void this.refresh();
  }

  /** The owner's places changed on this node: read at once (other nodes read them within a minute). */
  placesChanged(ownerId: number): void {
    for (const t of this.tracks.values()) if (t.ownerId === ownerId) this.setAside(t);
  }

  /** The rules and base are read again before the next evaluation, also when a read is under way. */
  private setAside(t: Track): void {
    t.rules = null;
    t.base = null;
    t.planned = false;
    t.gen++;
  }

  /** A finished drive stored by the session recorder. */
  driveFinished(vehicleId: string, ownerId: number, drive: DriveSession): void {
    if (!this.ruled.has(vehicleId) || drive.end === null || this.deps.seconds() - drive.end > DRIVE_REPORT_SECONDS) return;
    this.input(vehicleId, ownerId, { type: 'drive', drive });
  }

  /** Stops hearing and waits for what is under way. */
  async close(): Promise<void> {
    this.closed = true;
    for (const stop of this.stops.splice(0)) stop();
    if (this.poller) clearInterval(this.poller);
    if (this.scanner) clearInterval(this.scanner);
    const chains: Promise<void>[] = [];
    for (const t of this.tracks.values()) {
      if (t.timer) clearTimeout(t.timer);
      chains.push(t.chain);
    }
    await Promise.all(chains);
  }

  private heard(e: CarDataEvent): void {
    if (e.historical || !LIVE.has(e.code) || !this.ruled.has(e.vehicleId)) return;
    this.input(e.vehicleId, e.ownerId, { type: 'record', code: e.code, data: e.data });
  }

  private linkChanged(vehicleId: string, ownerId: number | null): void {
    const owner = this.ruled.get(vehicleId)?.ownerId;
    if (owner === undefined) return;
    if (ownerId === null) {
      // another node's change: the car now on another node is that node's to decide; a car now
      // connected nowhere (its node left or died: it may not have told its engine) is the leader's
      if (this.deps.carAnywhere(vehicleId)) {
        if (!this.deps.carHere(vehicleId)) this.drop(vehicleId);
      } else if (this.leading) this.lookAt(vehicleId, owner);
      return;
    }
    this.input(vehicleId, owner, { type: 'link', online: this.deps.carAnywhere(vehicleId) });
  }

  /** Queues an input for the vehicle (in order, one at a time). */
  private input(vehicleId: string, ownerId: number, input: AlertInput): void {
    const t = this.tracks.get(vehicleId);
    const now = this.deps.seconds();
    // the common case, without a promise: nothing queued, nothing to read, nothing to save
    if (t !== undefined && t.queued === 0 && !this.closed && t.rules !== null && t.base !== null && t.state !== null && now - t.baseAt < BASE_SECONDS) {
      t.heard = now;
      const ev = this.evaluateNow(t, input, now);
      if (ev === null) return;
      this.enqueue(vehicleId, ownerId, (track) => this.save(track, input, ev, now));
      return;
    }
    this.enqueue(vehicleId, ownerId, (track) => this.apply(track, input));
  }

  /**
   * Evaluates the input on the loaded state (in place): null when nothing must be saved (the
   * timer set), else the evaluation to save before its alerts are raised.
   */
  private evaluateNow(t: Track, input: AlertInput, now: number): Evaluation | null {
    const rules = t.rules!;
    const state = t.state!;
    if (rules.length === 0) {
      this.schedule(t);
      return null;
    }
    const base = t.base!;
    base.units = state.facts.units;
    // in place: a save refused or failed reads the state again from the store
    const ev = evaluate(state, rules, input, now, base, { inPlace: true });
    if (!ev.changed && now - t.savedAt < this.o.saveSeconds) {
      // nothing a wait depends on moved: the timer planned for this state stands
      if (!t.planned) this.schedule(t);
      return null;
    }
    return ev;
  }

  /** Saves an evaluation over the version it was computed from, then raises its alerts; false when another writer saved first. */
  private async saved(t: Track, ev: Evaluation, now: number): Promise<boolean> {
    // what fires is saved as pending with the state, so that a crash before its notification is
    // recorded raises it after the restart (reconcile), and never twice
    const fired = ev.fired.map((a): PendingAlert => ({ rule: a.rule, kind: a.kind, text: a.text, time: now }));
    const pending = fired.length > 0 ? [...t.pending, ...fired] : t.pending;
    const json = JSON.stringify(pending.length > 0 ? { ...ev.state, pending: pending.map(({ raising: _, ...p }) => p) } : ev.state);
    // a save that raises nothing need not wait for the disk: it survives a crash of the process
    const version = await this.deps.store.alerts.saveState(t.vehicleId, t.version, json, fired.length > 0);
    if (version === null) {
      // another writer saved since: its state is the one to go on from
      t.state = null;
      t.planned = false;
      return false;
    }
    t.version = version;
    t.savedAt = now;
    t.pending = pending;
    for (const a of fired) this.raise(t, a);
    this.schedule(t);
    return true;
  }

  /**
   * The pending alerts of a state read from the store (a crash, or another node, between a save
   * and the notifications' writes): those whose notification is not in the outbox are raised now.
   */
  private async reconcile(t: Track): Promise<void> {
    for (const p of t.pending) {
      if (p.raising === true) continue;
      if (await this.deps.store.push.hasAlertNotification(t.vehicleId, p.rule, p.kind, p.time)) this.recorded(t, p);
      else this.raise(t, p);
    }
  }

  /** The alert's notification is recorded: it is no longer pending (the next save says so). */
  private recorded(t: Track, p: PendingAlert): void {
    t.pending = t.pending.filter((x) => x !== p);
  }

  /** The save of an input evaluated at once; when another writer got there first, the input again on its state. */
  private async save(t: Track, input: AlertInput, ev: Evaluation, now: number): Promise<void> {
    if (this.closed) return;
    if (!(await this.saved(t, ev, now))) await this.apply(t, input);
  }

  /** Runs `step` for the vehicle after everything queued before it; a failure is logged and the state read again. */
  private enqueue(vehicleId: string, ownerId: number, step: (t: Track) => Promise<void>): void {
    if (this.closed) return;
    let t = this.tracks.get(vehicleId);
    if (!t) {
      t = { vehicleId, ownerId, rules: null, base: null, baseAt: 0, gen: 0, state: null, version: 0, savedAt: 0, chain: Promise.resolve(), queued: 0, timer: null, wakeAt: null, planned: false, heard: 0, pending: [] };
      this.tracks.set(vehicleId, t);
    }
    const track = t;
    track.heard = this.deps.seconds();
    track.queued++;
    track.chain = track.chain
      .then(() => step(track))
      .catch((err: unknown) => {
        track.state = null;
        this.setAside(track);
        logStoreFailure(this.deps.log, 'error', err, { vehicle: vehicleId }, `alerts: evaluating failed; the vehicle starts again from its saved state in ${RETRY_SECONDS} s`);
        this.retryLater(track);
      })
      .finally(() => {
        track.queued--;
      });
  }

  /** A tick in a while (no timer is set: nothing waits), so that a failure is not the vehicle's last word. */
  private retryLater(t: Track): void {
    if (this.closed || t.timer !== null) return;
    t.wakeAt = null;
    t.planned = false;
    t.timer = setTimeout(() => {
      t.timer = null;
      this.input(t.vehicleId, t.ownerId, { type: 'tick' });
    }, RETRY_SECONDS * 1000);
    t.timer.unref();
  }

  private async load(t: Track): Promise<void> {
    const { store } = this.deps;
    while (t.rules === null || t.base === null || this.deps.seconds() - t.baseAt >= BASE_SECONDS) {
      const gen = t.gen;
      const rules = await store.alerts.listRules(t.vehicleId);
      const vehicle = await store.getVehicle(t.vehicleId);
      const ownerId = vehicle?.ownerId ?? t.ownerId;
      const places = rules.some((r) => r.kind === 'place-arrive' || r.kind === 'place-leave') ? await store.drives.listPlaces(ownerId) : [];
      // set aside meanwhile (a rule or place changed): what was read may be the old one
      if (t.gen !== gen) continue;
      t.ownerId = ownerId;
      t.base = { vehicleId: t.vehicleId, name: vehicleLabel(t.vehicleId, vehicle?.name ?? ''), units: 'K', places, capacity: null };
      t.baseAt = this.deps.seconds();
      t.rules = rules;
    }
    if (t.state === null) {
      const saved = await store.alerts.loadState(t.vehicleId);
      const { pending = [], ...state }: SavedState = saved ? (JSON.parse(saved.state) as SavedState) : emptyAlertState();
      t.state = state;
      t.planned = false;
      t.version = saved?.version ?? 0;
      t.savedAt = this.deps.seconds();
      // those being raised by this node are its own; the others were left by a crash or a failover
      const raising = t.pending.filter((p) => p.raising === true);
      t.pending = [...raising, ...pending.filter((p) => !raising.some((r) => r.rule === p.rule && r.kind === p.kind && r.time === p.time))];
      if (t.pending.length > raising.length) await this.reconcile(t);
    }
  }

  private async apply(t: Track, input: AlertInput): Promise<void> {
    if (this.closed) return;
    for (let k = 0; k < SAVE_TRIES; k++) {
      await this.load(t);
      const now = this.deps.seconds();
      const ev = this.evaluateNow(t, input, now);
      if (ev === null || (await this.saved(t, ev, now))) return;
    }
    this.deps.log.warn({ vehicle: t.vehicleId }, 'alerts: the state kept moving elsewhere; this input is left to the other writer');
    this.retryLater(t);
  }

  /** Raises a pending alert; recorded: no longer pending; the outbox write failed: tried again later. */
  private raise(t: Track, p: PendingAlert): void {
    this.deps.log.info({ vehicle: t.vehicleId, rule: p.rule, event: p.kind }, 'alert fired');
    p.raising = true;
    void this.deps.raise(t.ownerId, t.vehicleId, alertTypeOf(p.kind), p.text, { event: p.kind, rule: p.rule }).then((ok) => {
      p.raising = false;
      if (ok) return this.recorded(t, p);
      if (this.closed) return;
      // the outbox did not take it: from the saved state again in a while (its pending list raises it)
      t.state = null;
      this.setAside(t);
      this.retryLater(t);
    });
  }

  /** Sets the vehicle's timer to its next wake (none pending: none). */
  private schedule(t: Track): void {
    const wake = t.state && t.rules ? nextWake(t.state, t.rules, this.deps.seconds()) : null;
    t.planned = t.state !== null && t.rules !== null;
    if (wake === t.wakeAt && (wake === null || t.timer !== null)) return;
    if (t.timer) clearTimeout(t.timer);
    t.timer = null;
    t.wakeAt = wake;
    if (wake === null || this.closed) return;
    const ms = Math.min(MAX_TIMER_MS, Math.max(0, (wake - this.deps.seconds()) * 1000) + 50);
    t.timer = setTimeout(() => {
      t.timer = null;
      t.wakeAt = null;
      t.planned = false;
      this.input(t.vehicleId, t.ownerId, { type: 'tick' });
    }, ms);
    t.timer.unref();
  }

  private drop(vehicleId: string): void {
    const t = this.tracks.get(vehicleId);
    if (!t) return;
    if (t.timer) clearTimeout(t.timer);
    this.tracks.delete(vehicleId);
  }

  /** Reads the rule counter; when it moved, which vehicles have rules and every known vehicle's rules. */
  private refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        const version = await this.deps.store.alerts.rulesVersion();
        if (version === this.rulesVersion) return;
        const ruled = await this.deps.store.alerts.ruledVehicles();
        const before = this.ruled;
        this.rulesVersion = version;
        this.ruled = new Map(ruled.map((r) => [r.vehicleId, { ownerId: r.ownerId, tag: r.rulesTag }]));
        for (const t of [...this.tracks.values()]) {
          const now = this.ruled.get(t.vehicleId);
          if (now === undefined) this.drop(t.vehicleId);
          else if (now.tag !== before.get(t.vehicleId)?.tag) {
            this.setAside(t);
            // a new rule may be due at once (offline for long already): a tick evaluates it
            this.input(t.vehicleId, t.ownerId, { type: 'tick' });
          }
        }
        if (this.leading) this.scan();
      } catch (err) {
        logStoreFailure(this.deps.log, 'warn', err, {}, 'alerts: reading which vehicles have rules failed');
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }

  /** The leader's look at the vehicles with rules whose car is connected nowhere. */
  private scan(): void {
    for (const [vehicleId, { ownerId }] of this.ruled) this.lookAt(vehicleId, ownerId);
  }

  /** The leader's look at one vehicle with rules, when its car is connected nowhere and not followed here already. */
  private lookAt(vehicleId: string, ownerId: number): void {
    if (this.closed || this.tracks.has(vehicleId) || this.deps.carAnywhere(vehicleId)) return;
    this.enqueue(vehicleId, ownerId, (t) => this.connectedNowhere(t));
  }

  /**
   * A vehicle whose car is connected nowhere: an engine that still believes it connected (a crash,
   * a node that died) learns it is not, since the car was last heard; else its waits run. A car
   * never heard of (no last update, no link in the state: a module not installed yet) has no
   * outage to tell: its engine learns of the link when the car first connects.
   */
  private async connectedNowhere(t: Track): Promise<void> {
    await this.load(t);
    const facts = t.state!.facts;
    if (this.closed || facts.online === false || this.deps.carAnywhere(t.vehicleId)) return this.apply(t, { type: 'tick' });
    const vehicle = await this.deps.store.getVehicle(t.vehicleId);
    const heard = vehicle?.lastUpdate ?? (facts.online === null ? null : facts.linkSince);
    if (heard === null) return this.apply(t, { type: 'tick' });
    return this.apply(t, { type: 'link', online: false, since: Math.min(this.deps.seconds(), heard) });
  }

  /** Forgets vehicles heard of long ago that wait for nothing and are not connected here. */
  private sweep(): void {
    const now = this.deps.seconds();
    for (const t of [...this.tracks.values()]) {
      if (t.timer === null && now - t.heard > this.o.idleSeconds && !this.deps.carHere(t.vehicleId)) this.tracks.delete(t.vehicleId);
    }
  }
}
