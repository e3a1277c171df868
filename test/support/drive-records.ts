/**
 * Records for drive and charge tests (issue 28): the comma data of live `S`, `D`, `L` messages and
 * of the firmware's trip and grid logs with named fields (docs/protocol/messages.md §3.1–3.3,
 * §3.11), and `ScriptedCar`, which plays a day (parking, drives, charges, lost connections) and
 * collects what the car sends, with the time each record arrives at the server.
 *
 * Units as the messages use them unless said otherwise: odometer and trip distance in the
 * vehicle's unit (the `D` message's tenths are made here), energy in kWh, power in kW.
 */
import { GRID_LOG, SessionTracker, TRIP_LOG, type SessionInput } from '../../src/core/drives/tracker.js';
import type { Session, SessionOp } from '../../src/core/drives/types.js';

type Value = number | string | null | undefined;

/** Comma-joins 1-based fields (`fields[n]` is field n), empty where not given, up to `count`. */
function join(fields: Record<number, Value>, count: number): string {
  const out: string[] = [];
  for (let n = 1; n <= count; n++) {
    const v = fields[n];
    out.push(v === null || v === undefined ? '' : String(v));
  }
  return out.join(',');
}

export interface SOptions {
  soc?: number;
  units?: 'K' | 'M';
  /** Field 5: `charging`, `topoff`, `done`, `stopped`, … */
  chargeState?: string;
  /** Field 6: `standard`, `range`, … */
  chargeMode?: string;
  /** kWh into the battery this charge (sent in tenths, field 12). */
  chargedKwh?: number;
  /** kWh from the grid this charge (field 39). */
  gridKwh?: number;
  /** Field 35, kW. */
  powerIn?: number;
  /** Field 32, kW. */
  powerOut?: number;
  soh?: number;
}

/** `S` data (42 fields). */
export function sData(o: SOptions = {}): string {
  return join(
    {
      1: o.soc,
      2: o.units ?? 'K',
      5: o.chargeState ?? 'stopped',
      6: o.chargeMode ?? 'standard',
      12: o.chargedKwh === undefined ? 0 : Math.round(o.chargedKwh * 10),
      32: o.powerOut,
      34: o.soh,
      35: o.powerIn,
      39: o.gridKwh,
    },
    42,
  );
}

export interface DOptions {
  /** doors1 bit 0x80; omitted: 0 (a car that never reports it, or ignition off). */
  ignition?: boolean;
  /** In the unit (sent in tenths, field 8). */
  odometer?: number;
  /** Field 9. */
  speed?: number;
}

/** `D` data (21 fields). */
export function dData(o: DOptions = {}): string {
  return join({ 1: o.ignition ? 0x80 | 0x40 : 0x40, 2: 8, 3: 4, 8: o.odometer === undefined ? undefined : Math.round(o.odometer * 10), 9: o.speed }, 21);
}

export interface LOptions {
  lat?: number;
  lon?: number;
  /** Field 7, unit per hour. */
  speed?: number;
  /** Fields 11/12: the car's cumulative counters (kWh), restarted at ignition. */
  used?: number;
  recovered?: number;
  gpsLock?: 0 | 1;
}

/** `L` data (19 fields). */
export function lData(o: LOptions = {}): string {
  return join({ 1: o.lat, 2: o.lon, 5: o.gpsLock ?? 1, 6: 1, 7: o.speed, 11: o.used, 12: o.recovered }, 19);
}

export interface TripLogOptions {
  lat?: number;
  lon?: number;
  location?: string;
  odometer?: number;
  /** Trip distance (field 7) and drive time in seconds (field 8): about 0 in the "on" log. */
  tripDistance?: number;
  driveTime?: number;
  soc?: number;
  used?: number;
  recovered?: number;
  soh?: number;
}

/** `*-LOG-Trip` data after the lifetime (36 fields). */
export function tripLogData(o: TripLogOptions = {}): string {
  return join(
    { 1: 1, 2: o.lat, 3: o.lon, 4: 100, 5: o.location ?? '', 6: o.odometer, 7: o.tripDistance ?? 0, 8: o.driveTime ?? 0, 9: 0, 10: o.soc, 14: o.used ?? 0, 15: o.recovered ?? 0, 18: o.soh },
    36,
  );
}

export interface GridLogOptions {
  lat?: number;
  lon?: number;
  location?: string;
  /** Field 6: `type2`, `ccs`, `chademo`, … */
  chargeType?: string;
  /** Field 7: `charging`, `topoff`, `done`, `stopped`, … */
  chargeState: string;
  chargeTime?: number;
  kwh?: number;
  grid?: number;
  soc?: number;
  soh?: number;
  odometer?: number;
}

/** `*-LOG-Grid` data after the lifetime (45 fields). */
export function gridLogData(o: GridLogOptions): string {
  return join(
    { 1: 1, 2: o.lat, 3: o.lon, 4: 100, 5: o.location ?? '', 6: o.chargeType ?? 'type2', 7: o.chargeState, 9: 'standard', 20: o.chargeTime ?? 0, 21: o.kwh ?? 0, 22: o.grid ?? 0, 28: o.soc, 38: o.soh, 45: o.odometer },
    45,
  );
}

export const S = (time: number, o: SOptions = {}): SessionInput => ({ code: 'S', time, data: sData(o) });
export const D = (time: number, o: DOptions = {}): SessionInput => ({ code: 'D', time, data: dData(o) });
export const L = (time: number, o: LOptions = {}): SessionInput => ({ code: 'L', time, data: lData(o) });
export const tripLog = (time: number, o: TripLogOptions = {}): SessionInput => ({ code: TRIP_LOG, time, data: tripLogData(o) });
export const gridLog = (time: number, o: GridLogOptions): SessionInput => ({ code: GRID_LOG, time, data: gridLogData(o) });

/** A record and when it reaches the server (a log sent later than its own time arrives later). */
export interface Arriving {
  input: SessionInput;
  arrival: number;
}

export interface CarOptions {
  start?: number;
  soc?: number;
  odometer?: number;
  lat?: number;
  lon?: number;
  units?: 'K' | 'M';
  /** Whether `D` reports the ignition (default true). */
  ignition?: boolean;
  /** Whether the car sends trip and grid logs (default false). */
  logs?: boolean;
  soh?: number;
}

/**
 * A car playing a scripted day. Each step moves its clock and appends the records it sends: live
 * `S`, `D`, `L` together at each report while online, logs at ignition and charge-state changes
 * (queued while offline, sent at reconnection, as the firmware does).
 */
export class ScriptedCar {
  t: number;
  soc: number;
  odometer: number;
  lat: number;
  lon: number;
  online = true;
  readonly records: Arriving[] = [];
  private used = 0;
  private recovered = 0;
  private ignitionOn = false;
  private chg: { state: string; kwh: number; grid: number; power: number; mode: string; start: number } = {
    state: 'stopped',
    kwh: 0,
    grid: 0,
    power: 0,
    mode: 'standard',
    start: 0,
  };
  private queued: SessionInput[] = [];

  constructor(private readonly o: CarOptions = {}) {
    this.t = o.start ?? 1_700_000_000;
    this.soc = o.soc ?? 60;
    this.odometer = o.odometer ?? 12_345.6;
    this.lat = o.lat ?? 48.1;
    this.lon = o.lon ?? 11.5;
  }

  /** The live records only, in arrival order. */
  get live(): SessionInput[] {
    return this.records.filter((r) => r.input.code.length === 1).map((r) => r.input);
  }

  /** Every record in arrival order (how a connected server hears them). */
  arrivalOrder(): SessionInput[] {
    return this.records
      .map((r, i) => ({ r, i }))
      .sort((a, b) => a.r.arrival - b.r.arrival || a.i - b.i)
      .map(({ r }) => r.input);
  }

  /** Every record by its own time (how a rebuild reads them). */
  timeOrder(): SessionInput[] {
    return this.records
      .map((r, i) => ({ r, i }))
      .sort((a, b) => a.r.input.time - b.r.input.time || a.i - b.i)
      .map(({ r }) => r.input);
  }

  /** Sends S, D and L now (when online). */
  report(speed = 0): void {
    if (!this.online) return;
    const c = this.chg;
    const charging = c.state === 'charging' || c.state === 'topoff';
    this.send(
      S(this.t, {
        soc: round(this.soc, 1),
        units: this.o.units ?? 'K',
        chargeState: c.state,
        chargeMode: c.mode,
        chargedKwh: c.kwh,
        gridKwh: round(c.grid, 1),
        powerIn: charging ? c.power : 0,
        soh: this.o.soh ?? 95,
      }),
    );
    this.send(D(this.t, { ignition: (this.o.ignition ?? true) && this.ignitionOn, odometer: round(this.odometer, 1) }));
    this.send(L(this.t, { lat: round(this.lat, 6), lon: round(this.lon, 6), speed, used: round(this.used, 3), recovered: round(this.recovered, 3) }));
  }

  /** Stays parked `seconds`, reporting every `every` seconds (a parked car: 10 minutes). */
  park(seconds: number, every = 600): this {
    const end = this.t + seconds;
    while (this.t + every <= end) {
      this.t += every;
      this.report();
    }
    this.t = end;
    return this;
  }

  /**
   * Drives `seconds` at `speed` (unit/h), reporting every `every` seconds, from ignition on to off;
   * the connection is lost `lostAfter` seconds into the drive when given (call `reconnect` later).
   */
  drive(seconds: number, speed = 50, every = 30, lostAfter?: number): this {
    this.ignitionOn = true;
    this.used = 0;
    this.recovered = 0;
    const start = { t: this.t, odo: this.odometer };
    this.tripLog(0, 0);
    this.report();
    let elapsed = 0;
    while (elapsed < seconds) {
      const dt = Math.min(every, seconds - elapsed);
      elapsed += dt;
      this.t += dt;
      if (lostAfter !== undefined && elapsed > lostAfter) this.online = false;
      const km = (speed * dt) / 3600;
      this.odometer += km;
      this.lat += km / 111;
      this.used += km * 0.16;
      this.recovered += km * 0.02;
      this.soc = Math.max(0, this.soc - km * 0.25);
      this.report(speed);
    }
    this.t += 5;
    this.ignitionOn = false;
    this.report();
    this.tripLog(round(this.odometer - start.odo, 1), this.t - start.t);
    return this;
  }

  /** Charges `seconds` at `power` kW (DC when `type` says so), reporting every `every` seconds; ends `done`. */
  charge(seconds: number, power = 7, every = 60, type = 'type2'): this {
    const c = this.chg;
    c.state = 'charging';
    c.kwh = 0;
    c.grid = 0;
    c.power = power;
    c.mode = type === 'type2' ? 'standard' : 'dc';
    c.start = this.t;
    this.gridLog(type);
    this.report();
    let elapsed = 0;
    while (elapsed < seconds) {
      const dt = Math.min(every, seconds - elapsed);
      elapsed += dt;
      this.t += dt;
      const kwh = (power * dt) / 3600;
      c.kwh += kwh;
      c.grid += kwh * 1.1;
      this.soc = Math.min(100, this.soc + kwh / 0.6);
      this.report();
    }
    this.t += 5;
    c.state = 'done';
    this.report();
    this.gridLog(type);
    return this;
  }

  /** A stop that resumes after `pause` seconds (a flapping charge), while charging. */
  flap(pause = 30): this {
    const c = this.chg;
    c.state = 'stopped';
    this.report();
    this.t += pause;
    c.state = 'charging';
    this.report();
    return this;
  }

  /** Loses the connection (nothing is sent; logs are queued). */
  offline(): this {
    this.online = false;
    return this;
  }

  /** Regains it: queued logs are sent now. */
  reconnect(): this {
    this.online = true;
    for (const q of this.queued) this.records.push({ input: q, arrival: this.t });
    this.queued = [];
    this.report();
    return this;
  }

  /** Changes the SOC while offline or parked (e.g. a charge the server never saw). */
  setSoc(soc: number): this {
    this.soc = soc;
    return this;
  }

  private send(input: SessionInput): void {
    this.records.push({ input, arrival: input.time });
  }

  private tripLog(trip: number, driveTime: number): void {
    if (!this.o.logs) return;
    this.log(
      tripLog(this.t, {
        lat: round(this.lat, 6),
        lon: round(this.lon, 6),
        odometer: round(this.odometer, 1),
        tripDistance: trip,
        driveTime,
        soc: round(this.soc, 1),
        used: round(this.used, 3),
        recovered: round(this.recovered, 3),
        soh: this.o.soh ?? 95,
      }),
    );
  }

  private gridLog(type: string): void {
    if (!this.o.logs) return;
    const c = this.chg;
    this.log(
      gridLog(this.t, {
        lat: round(this.lat, 6),
        lon: round(this.lon, 6),
        chargeType: type,
        chargeState: c.state,
        chargeTime: this.t - c.start,
        kwh: round(c.kwh, 2),
        grid: round(c.grid, 2),
        soc: round(this.soc, 1),
        soh: this.o.soh ?? 95,
        odometer: round(this.odometer, 1),
      }),
    );
  }

  private log(input: SessionInput): void {
    if (this.online) this.records.push({ input, arrival: input.time });
    else this.queued.push(input);
  }
}

/** A store of sessions as the recorder keeps them: ops applied by (kind, key). */
export class SessionMap {
  readonly sessions = new Map<string, Session>();
  puts = 0;

  apply(ops: readonly SessionOp[]): void {
    for (const op of ops) {
      if (op.op === 'put') {
        this.puts++;
        this.sessions.set(`${op.session.session}|${op.session.key}`, op.session);
      } else this.sessions.delete(`${op.session}|${op.key}`);
    }
  }

  /** The sessions of a kind, oldest first. */
  list<K extends Session['session']>(kind: K): Extract<Session, { session: K }>[] {
    return [...this.sessions.values()]
      .filter((s): s is Extract<Session, { session: K }> => s.session === kind)
      .sort((a, b) => a.start - b.start);
  }

  /** Every session, sorted by kind and start: for equality checks. */
  all(): Session[] {
    return [...this.sessions.values()].sort((a, b) => (a.session < b.session ? -1 : a.session > b.session ? 1 : a.start - b.start || (a.key < b.key ? -1 : 1)));
  }
}

/**
 * Feeds records as a connected server does: in the given (arrival) order, ticking the tracker
 * every `tickEvery` seconds of the records' clock while it is busy, and once at `now` at the end.
 */
export function feedLive(tracker: SessionTracker, records: readonly SessionInput[], now: number, into = new SessionMap(), tickEvery = 60): SessionMap {
  let clock = 0;
  for (const r of records) {
    if (clock === 0) clock = r.time;
    while (tracker.busy && clock + tickEvery < r.time) {
      clock += tickEvery;
      into.apply(tracker.tick(clock));
    }
    clock = Math.max(clock, r.time);
    into.apply(tracker.feed(r));
  }
  into.apply(tracker.tick(now));
  return into;
}

/** A rebuild: every record by time into a fresh tracker, then one tick at `now`. */
export function rebuild(records: readonly SessionInput[], now: number, publishEvery = Infinity): SessionMap {
  const t = new SessionTracker(undefined, { publishEvery });
  const map = new SessionMap();
  const sorted = records.map((r, i) => ({ r, i })).sort((a, b) => a.r.time - b.r.time || a.i - b.i);
  for (const { r } of sorted) map.apply(t.feed(r));
  map.apply(t.tick(now));
  return map;
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}
