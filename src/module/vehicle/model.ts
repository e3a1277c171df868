/**
 * The emulated vehicle: a battery electric car that drives around a route, parks and charges,
 * deterministic for a seed. Its whole state lives in v3 metrics (docs/protocol/mqtt-v3.md §10), which the links
 * publish; console commands act on it through the actions (docs/protocol/module-console.md §4), behaving like
 * the firmware's DEMO vehicle where docs/protocol/module-console.md §4.4 describes it.
 *
 * Time is the module's clock in epoch seconds (simulated: `vts module --speedup` runs it faster).
 * `advance(t)` moves the simulation forward in fixed steps, so the same seed and the same clock
 * give the same history however often it is called.
 */
import type { MetricSet } from '../../core/metrics/metric-set.js';
import type { MetricValue } from '../../core/metrics/metric.js';
import { CAPACITY_KWH, FULL_RANGE_KM, initialMetrics, round } from './initial-metrics.js';
import { Random } from './random.js';
import { Route, type Point } from './route.js';
import type { ActionOutcome, ChargeMode, EmulatedVehicle } from './vehicle.js';

/** Simulation step in seconds (the firmware DEMO vehicle also moves every 10 s). */
export const STEP_SECONDS = 10;

const CONSUMPTION_KWH_PER_KM = 0.16;
const CHARGE_VOLTAGE = 230;
const CHARGER_EFFICIENCY = 0.92;

export interface VehicleOptions {
  id: string;
  seed: number;
  /** The module clock at start (epoch seconds). */
  startTime: number;
  /** Where the car lives (default Munich). */
  home?: Point;
  vin?: string;
  firmware?: string;
}

type Phase = 'parked' | 'driving' | 'charging';

export class VehicleModel implements EmulatedVehicle {
  readonly typeCode = 'DEMO';
  readonly typeName = 'Demonstration Vehicle';
  readonly id: string;
  private readonly rng: Random;
  private readonly route: Route;
  private time: number;
  private phase: Phase = 'parked';
  private phaseEnds: number;
  private routeKm = 0;
  private awakeUntil = 0;

  constructor(
    readonly metrics: MetricSet,
    opts: VehicleOptions,
  ) {
    this.id = opts.id;
    this.rng = new Random(opts.seed);
    this.time = Math.floor(opts.startTime);
    const home = opts.home ?? { lat: 48.137154, lon: 11.576124 };
    this.route = Route.around(home, this.rng);
    this.phaseEnds = this.time + this.rng.int(120, 900);
    this.initialise(opts, home);
  }

  now(): number {
    return this.time;
  }

  private set(name: string, value: MetricValue): void {
    this.metrics.set(name, value, this.time);
  }

  /** Full-precision values of the counters that grow in small steps (SOC, odometer, energy). */
  private readonly precise = new Map<string, { exact: number; shown: number }>();

  /**
   * Adds `delta` to a counter metric kept at full precision inside and shown rounded (a 10 s step
   * adds less than the shown precision). A value set from outside (`metrics set`) restarts it.
   */
  private add(name: string, delta: number, decimals: number, min = -Infinity, max = Infinity): number {
    const shown = this.metrics.num(name) ?? 0;
    const p = this.precise.get(name);
    const base = p && p.shown === shown ? p.exact : shown;
    const exact = Math.min(max, Math.max(min, base + delta));
    const rounded = round(exact, decimals);
    this.precise.set(name, { exact, shown: rounded });
    this.set(name, rounded);
    return exact;
  }

  private initialise(opts: VehicleOptions, home: Point): void {
    for (const [name, value] of initialMetrics(opts, home, this.rng, this.typeCode)) this.set(name, value);
    this.updateDerived();
  }

  /** Moves the simulation forward to `t` (epoch seconds), in whole steps. */
  advance(t: number): void {
    while (this.time + STEP_SECONDS <= t) {
      this.time += STEP_SECONDS;
      this.step(STEP_SECONDS);
    }
    // the clock and the GPS fix are current between steps too (their staleness class is 10 s)
    const now = Math.floor(t);
    this.metrics.set('m.time.utc', now, now);
    if (this.metrics.bool('v.p.gpslock')) this.metrics.set('v.p.gpstime', now, now);
  }

  private step(dt: number): void {
    if (this.phase === 'driving') this.drive(dt);
    else if (this.phase === 'charging') this.charge(dt);
    else this.park(dt);
    if (this.time >= this.phaseEnds) this.nextPhase();
    this.updateDerived();
  }

  private nextPhase(): void {
    const soc = this.metrics.num('v.b.soc') ?? 0;
    if (this.phase === 'charging') return; // charging ends when the battery reaches its limit
    if (this.phase === 'driving') {
      this.stopDriving();
      if (soc < 30) this.startCharging('scheduledstart');
      else this.phaseEnds = this.time + this.rng.int(600, 3600);
      return;
    }
    if (soc < 30) this.startCharging('scheduledstart');
    else if (this.plugged()) this.unplug();
    else this.startDriving(this.rng.int(600, 2400));
  }

  /** Whether the cable is in (the pilot signal) or the charge port open: the car cannot drive off. */
  private plugged(): boolean {
    return this.metrics.bool('v.c.pilot') === true || this.metrics.bool('v.d.cp') === true;
  }

  /** The driver takes the cable out and closes the port; the drive begins a minute or two later. */
  private unplug(): void {
    this.set('v.c.pilot', false);
    this.set('v.d.cp', false);
    this.phaseEnds = this.time + this.rng.int(60, 180);
  }

  /** Only with the cable out and the charge port closed (`nextPhase` unplugs first). */
  private startDriving(seconds: number): void {
    this.phase = 'driving';
    this.phaseEnds = this.time + seconds;
    this.set('v.e.on', true);
    this.set('v.e.awake', true);
    this.set('v.e.handbrake', false);
    this.set('v.e.locked', false);
    this.set('v.e.gear', 1);
    this.set('v.e.parktime', 0);
    this.set('v.e.drivetime', 0);
    this.set('v.p.trip', 0);
    this.set('v.b.energy.used', 0);
    this.set('v.b.energy.recd', 0);
    this.set('v.e.aux12v', true);
    this.set('v.e.charging12v', true);
  }

  private stopDriving(): void {
    this.phase = 'parked';
    for (const [n, v] of [
      ['v.e.on', false],
      ['v.e.gear', 0],
      ['v.e.handbrake', true],
      ['v.p.speed', 0],
      ['v.p.gpsspeed', 0],
      ['v.b.power', 0],
      ['v.b.current', 0],
      ['v.i.power', 0],
      ['v.m.rpm', 0],
      ['v.e.aux12v', false],
      ['v.e.charging12v', false],
    ] as [string, MetricValue][]) {
      this.set(n, v);
    }
    this.awakeUntil = this.time + 300;
  }

  private drive(dt: number): void {
    const speed = Math.max(15, Math.min(120, (this.metrics.num('v.p.speed') || 50) + this.rng.range(-12, 12)));
    const km = (speed * dt) / 3600;
    this.routeKm += km;
    const { point, heading } = this.route.at(this.routeKm);
    const regen = this.rng.next() < 0.2;
    const kwh = km * CONSUMPTION_KWH_PER_KM * (regen ? -0.5 : 1);
    const power = (kwh * 3600) / dt;
    const m = this.metrics;
    this.set('v.p.speed', round(speed, 1));
    this.set('v.p.gpsspeed', round(speed + this.rng.range(-1, 1), 1));
    this.set('v.p.latitude', round(point.lat, 6));
    this.set('v.p.longitude', round(point.lon, 6));
    this.set('v.p.direction', Math.round(heading));
    this.set('v.p.altitude', Math.round(520 + 30 * Math.sin(this.routeKm / 3)));
    this.add('v.p.odometer', km, 1);
    this.add('v.p.trip', km, 1);
    this.set('v.p.gpstime', this.time);
    this.add('v.b.soc', -(kwh / CAPACITY_KWH) * 100, 1, 0, 100);
    this.set('v.b.power', round(power, 3));
    this.set('v.b.current', round((power * 1000) / 380, 2));
    this.set('v.i.power', round(power * 1.05, 2));
    this.set('v.i.efficiency', 94);
    this.set('v.m.rpm', Math.round(speed * 95));
    const counter = regen ? 'v.b.energy.recd' : 'v.b.energy.used';
    this.add(counter, Math.abs(kwh), 3);
    this.add(counter + '.total', Math.abs(kwh), 3);
    this.set('v.e.drivetime', (m.num('v.e.drivetime') ?? 0) + dt);
    this.warm(['v.b.temp', 'v.i.temp', 'v.m.temp'], 35, 0.05);
    this.set('v.t.temp', (m.vec('v.t.temp') ?? [15, 15, 15, 15]).map((t) => round(t + (30 - t) * 0.02, 1)));
    if ((m.num('v.b.soc') ?? 0) < 10) this.phaseEnds = this.time; // running low: park and charge
  }

  private park(dt: number): void {
    const m = this.metrics;
    this.set('v.e.parktime', (m.num('v.e.parktime') ?? 0) + dt);
    this.warm(['v.b.temp', 'v.i.temp', 'v.m.temp', 'v.c.temp'], m.num('v.e.temp') ?? 15, 0.01);
    this.set('v.t.temp', (m.vec('v.t.temp') ?? [15, 15, 15, 15]).map((t) => round(t + ((m.num('v.e.temp') ?? 15) - t) * 0.01, 1)));
    if (this.time > this.awakeUntil && !m.bool('v.e.hvac')) this.set('v.e.awake', false);
  }

  private charge(dt: number): void {
    const m = this.metrics;
    const amps = m.num('v.c.climit') ?? 32;
    const input = (CHARGE_VOLTAGE * amps) / 1000; // kW from the grid
    const output = input * CHARGER_EFFICIENCY;
    const kwh = (output * dt) / 3600;
    const limit = m.num('v.c.limit.soc') || 100;
    const soc = this.add('v.b.soc', (kwh / CAPACITY_KWH) * 100, 1, 0, 100);
    this.add('v.c.kwh', kwh, 2);
    this.add('v.c.kwh.grid', kwh / CHARGER_EFFICIENCY, 2);
    this.add('v.c.kwh.grid.total', kwh / CHARGER_EFFICIENCY, 2);
    this.set('v.c.time', (m.num('v.c.time') ?? 0) + dt);
    this.set('v.c.voltage', CHARGE_VOLTAGE);
    this.set('v.c.current', amps);
    this.set('v.c.power', round(input, 2));
    this.set('v.c.efficiency', CHARGER_EFFICIENCY * 100);
    this.set('v.b.power', round(-output, 3));
    this.set('v.b.current', round((-output * 1000) / 380, 2));
    this.warm(['v.c.temp', 'v.b.temp'], 32, 0.02);
    const minutes = (target: number) => (soc >= target ? 0 : Math.ceil((((target - soc) / 100) * CAPACITY_KWH * 60) / output));
    this.set('v.c.duration.full', minutes(100));
    this.set('v.c.duration.soc', minutes(limit));
    this.set('v.c.duration.range', -1);
    if (soc >= limit) this.finishCharging('done');
  }

  private startCharging(substate: string): void {
    this.phase = 'charging';
    this.phaseEnds = Number.POSITIVE_INFINITY;
    for (const [n, v] of [
      ['v.c.charging', true],
      ['v.c.state', 'charging'],
      ['v.c.substate', substate],
      ['v.c.pilot', true],
      ['v.d.cp', true],
      ['v.c.kwh', 0],
      ['v.c.kwh.grid', 0],
      ['v.c.time', 0],
      ['v.e.awake', true],
      ['v.e.charging12v', true],
    ] as [string, MetricValue][]) {
      this.set(n, v);
    }
  }

  /** Charging ends (the limit, or a stop command): the cable stays in and the port open until `unplug`. */
  private finishCharging(state: 'done' | 'stopped'): void {
    this.phase = 'parked';
    this.phaseEnds = this.time + this.rng.int(600, 3600);
    for (const [n, v] of [
      ['v.c.charging', false],
      ['v.c.state', state],
      ['v.c.substate', state === 'done' ? 'scheduledstop' : 'stopped'],
      ['v.c.voltage', 0],
      ['v.c.current', 0],
      ['v.c.power', 0],
      ['v.c.efficiency', 0],
      ['v.b.power', 0],
      ['v.b.current', 0],
      ['v.c.duration.full', -1],
      ['v.c.duration.soc', -1],
      ['v.c.duration.range', -1],
      ['v.c.timestamp', this.time],
      ['v.e.charging12v', false],
    ] as [string, MetricValue][]) {
      this.set(n, v);
    }
    this.awakeUntil = this.time + 300;
  }

  /** Moves temperatures a fraction of the way towards a target. */
  private warm(names: string[], target: number, rate: number): void {
    for (const n of names) {
      const t = this.metrics.num(n) ?? target;
      this.set(n, round(t + (target - t) * rate, 1));
    }
  }

  /** Values that follow from others: ranges, 12 V, clock, cabin. */
  private updateDerived(): void {
    const m = this.metrics;
    const soc = m.num('v.b.soc') ?? 0;
    this.set('v.b.range.ideal', round((soc / 100) * FULL_RANGE_KM, 1));
    this.set('v.b.range.est', round((soc / 100) * FULL_RANGE_KM * 0.82, 1));
    this.set('v.b.voltage', round(340 + soc * 0.6, 1));
    this.set('v.b.12v.voltage', m.bool('v.e.charging12v') ? 14.2 : 12.6);
    this.set('v.b.12v.current', m.bool('v.e.charging12v') ? 12.5 : 0.4);
    this.set('m.time.utc', this.time);
    this.set('v.p.gpstime', this.time);
    const cabin = m.num('v.e.cabintemp') ?? 16;
    const hvac = m.bool('v.e.hvac');
    const target = hvac ? (m.num('v.e.cabinsetpoint') ?? 21) : (m.num('v.e.temp') ?? 15);
    this.set('v.e.cabintemp', round(cabin + (target - cabin) * 0.2, 1));
    this.set('v.e.heating', hvac && target > cabin + 0.5);
    this.set('v.e.cooling', hvac && target < cabin - 0.5);
  }

  // --- actions (docs/protocol/module-console.md §4.3, §4.4) ---

  chargeStart(): ActionOutcome {
    if (this.phase === 'charging') return 'ok';
    if (this.phase === 'driving') return 'failed';
    this.startCharging('onrequest');
    return 'ok';
  }

  chargeStop(): ActionOutcome {
    if (this.phase === 'charging') this.finishCharging('stopped');
    return 'ok';
  }

  chargeMode(mode: ChargeMode): ActionOutcome {
    this.set('v.c.mode', mode);
    return 'ok';
  }

  chargeCurrent(amps: number): ActionOutcome {
    if (!(amps >= 1 && amps <= 80)) return 'failed';
    this.set('v.c.climit', amps);
    return 'ok';
  }

  chargeCooldown(): ActionOutcome {
    return 'unsupported';
  }

  lock(_pin: string): ActionOutcome {
    if (this.phase === 'driving') return 'failed';
    this.set('v.e.locked', true);
    return 'ok';
  }

  unlock(_pin: string): ActionOutcome {
    this.set('v.e.locked', false);
    return 'ok';
  }

  valet(_pin: string): ActionOutcome {
    this.set('v.e.valet', true);
    return 'ok';
  }

  unvalet(_pin: string): ActionOutcome {
    this.set('v.e.valet', false);
    return 'ok';
  }

  homelink(_button: number, _durationMs: number): ActionOutcome {
    return 'ok';
  }

  climate(on: boolean): ActionOutcome {
    this.set('v.e.hvac', on);
    if (on) this.set('v.e.awake', true);
    else this.awakeUntil = this.time + 60;
    this.updateDerived();
    return 'ok';
  }

  wakeup(): ActionOutcome {
    this.set('v.e.awake', true);
    this.awakeUntil = this.time + 600;
    return 'ok';
  }
}
