/**
 * A small emulated vehicle for the console tests, behaving like the firmware's DEMO vehicle
 * (docs/protocol/module-console.md §4.4): it starts parked and locked-out of nothing, SOC 50 %, ranges 200/160
 * km, odometer 100000 km, CAC 160 Ah, SOH 100 %, 12 V battery at 12 V, GPS lock with 12
 * satellites, charge state `done`, tyres set. `charge start` charges at 220 V / 32 A with the
 * port open, `charge stop` reverts, `wakeup` switches the car on, lock/unlock/valet only set
 * metrics; charge mode, cooldown and homelink are not available. Any action's outcome can be
 * forced through `outcomes`; the clock is `time` (epoch seconds).
 */
import { MetricSet } from '../../src/core/metrics/metric-set.js';
import { STALE, type MetricDef, type MetricType } from '../../src/core/metrics/metric.js';
import type { ActionOutcome, ChargeMode, EmulatedVehicle } from '../../src/module/vehicle/vehicle.js';

/** [name, type, unit, persistent?, decimals?] */
type Row = [string, MetricType, string, boolean?, number?];

const ROWS: Row[] = [
  ['m.freeram', 'I', 'bytes'],
  ['m.hardware', 'S', ''],
  ['m.net.provider', 'S', ''],
  ['m.net.sq', 'I', 'dBm'],
  ['m.net.type', 'S', ''],
  ['m.net.wifi.network', 'S', ''],
  ['m.net.wifi.sq', 'F', 'dBm'],
  ['m.time.utc', 'I64', 'date'],
  ['v.type', 'S', ''],
  ['v.vin', 'S', ''],
  ['v.b.soc', 'F', '%', true],
  ['v.b.soh', 'F', '%', true],
  ['v.b.cac', 'F', 'Ah', true],
  ['v.b.range.ideal', 'F', 'km', true],
  ['v.b.range.est', 'F', 'km', true],
  ['v.b.range.speed', 'F', 'km/h'],
  ['v.b.12v.voltage', 'F', 'V', true],
  ['v.b.energy.used', 'F', 'kWh', true],
  ['v.b.energy.recd', 'F', 'kWh', true],
  ['v.b.consumption', 'F', 'Wh/km'],
  ['v.b.c.voltage', 'V', 'V'],
  ['v.b.temp', 'F', '°C', true],
  ['v.c.charging', 'B', '', true],
  ['v.c.state', 'S', ''],
  ['v.c.substate', 'S', ''],
  ['v.c.mode', 'S', ''],
  ['v.c.pilot', 'B', ''],
  ['v.c.voltage', 'F', 'V'],
  ['v.c.current', 'F', 'A'],
  ['v.c.climit', 'F', 'A', true],
  ['v.c.kwh', 'F', 'kWh', true],
  ['v.c.kwh.grid', 'F', 'kWh', true],
  ['v.c.limit.soc', 'F', '%', true],
  ['v.c.limit.range', 'F', 'km', true],
  ['v.c.duration.full', 'I', 'Min'],
  ['v.c.duration.soc', 'I', 'Min'],
  ['v.c.duration.range', 'I', 'Min'],
  ['v.d.cp', 'B', '', true],
  ['v.e.on', 'B', '', true],
  ['v.e.awake', 'B', '', true],
  ['v.e.locked', 'B', '', true],
  ['v.e.valet', 'B', '', true],
  ['v.e.hvac', 'B', ''],
  ['v.e.parktime', 'I', 'Sec', true],
  ['v.p.latitude', 'F', '', true, 6],
  ['v.p.longitude', 'F', '', true, 6],
  ['v.p.altitude', 'F', 'm', true],
  ['v.p.speed', 'F', 'km/h'],
  ['v.p.odometer', 'F', 'km', true],
  ['v.p.trip', 'F', 'km', true],
  ['v.p.gpslock', 'B', ''],
  ['v.p.satcount', 'I', ''],
  ['v.t.pressure', 'V', 'kPa', true],
  ['v.t.alert', 'VS', '', true],
];

export const FAKE_CATALOG: ReadonlyMap<string, MetricDef> = new Map(
  ROWS.map(([name, type, unit, persistent, decimals]): [string, MetricDef] => {
    const def: MetricDef = { name, type, unit, stale: STALE.MID };
    if (persistent) def.persistent = true;
    if (decimals !== undefined) def.decimals = decimals;
    return [name, def];
  }),
);

export const T0 = Date.UTC(2026, 0, 15, 9, 12, 44) / 1000; // 2026-01-15 09:12:44 UTC

type ActionName = keyof Pick<
  EmulatedVehicle,
  | 'chargeStart'
  | 'chargeStop'
  | 'chargeMode'
  | 'chargeCurrent'
  | 'chargeCooldown'
  | 'lock'
  | 'unlock'
  | 'valet'
  | 'unvalet'
  | 'homelink'
  | 'climate'
  | 'wakeup'
>;

export class FakeVehicle implements EmulatedVehicle {
  readonly id = 'EMU0001';
  typeCode = 'DEMO';
  readonly typeName = 'Demonstration Vehicle';
  readonly metrics = new MetricSet(FAKE_CATALOG);
  time = T0;
  /** Forced outcomes, by action. */
  readonly outcomes = new Map<ActionName, ActionOutcome>();
  /** Actions called, with their arguments. */
  readonly calls: [ActionName, ...unknown[]][] = [];

  constructor() {
    const init: [string, number | boolean | string | number[]][] = [
      ['v.type', 'DEMO'],
      ['v.b.soc', 50],
      ['v.b.soh', 100],
      ['v.b.cac', 160],
      ['v.b.range.ideal', 200],
      ['v.b.range.est', 160],
      ['v.b.12v.voltage', 12],
      ['v.p.odometer', 100000],
      ['v.p.latitude', 22.280868],
      ['v.p.longitude', 114.160598],
      ['v.p.gpslock', true],
      ['v.p.satcount', 12],
      ['v.c.state', 'done'],
      ['v.c.mode', 'standard'],
      ['v.c.charging', false],
      ['v.d.cp', false],
      ['v.e.on', false],
      ['v.e.awake', false],
      ['v.e.locked', false],
      ['v.e.valet', false],
      ['v.t.pressure', [206.843, 206.843, 275.79, 275.79]],
    ];
    for (const [name, value] of init) this.metrics.set(name, value, this.time);
  }

  now(): number {
    return this.time;
  }

  private set(values: Record<string, number | boolean | string>): void {
    for (const [name, value] of Object.entries(values)) this.metrics.set(name, value, this.time);
  }

  private act(name: ActionName, args: unknown[], effect: () => ActionOutcome): ActionOutcome {
    this.calls.push([name, ...args]);
    const forced = this.outcomes.get(name);
    if (forced) return forced;
    return effect();
  }

  chargeStart(): ActionOutcome {
    return this.act('chargeStart', [], () => {
      this.set({
        'v.c.charging': true,
        'v.c.state': 'charging',
        'v.c.substate': 'onrequest',
        'v.c.pilot': true,
        'v.d.cp': true,
        'v.c.voltage': 220,
        'v.c.current': 32,
      });
      return 'ok';
    });
  }

  chargeStop(): ActionOutcome {
    return this.act('chargeStop', [], () => {
      this.set({
        'v.c.charging': false,
        'v.c.state': 'done',
        'v.c.substate': 'stopped',
        'v.c.pilot': false,
        'v.d.cp': false,
        'v.c.voltage': 0,
        'v.c.current': 0,
      });
      return 'ok';
    });
  }

  chargeMode(mode: ChargeMode): ActionOutcome {
    return this.act('chargeMode', [mode], () => 'unsupported');
  }

  chargeCurrent(amps: number): ActionOutcome {
    return this.act('chargeCurrent', [amps], () => {
      this.set({ 'v.c.climit': amps });
      return 'ok';
    });
  }

  chargeCooldown(): ActionOutcome {
    return this.act('chargeCooldown', [], () => 'unsupported');
  }

  lock(pin: string): ActionOutcome {
    return this.act('lock', [pin], () => (this.set({ 'v.e.locked': true }), 'ok'));
  }

  unlock(pin: string): ActionOutcome {
    return this.act('unlock', [pin], () => (this.set({ 'v.e.locked': false }), 'ok'));
  }

  valet(pin: string): ActionOutcome {
    return this.act('valet', [pin], () => (this.set({ 'v.e.valet': true }), 'ok'));
  }

  unvalet(pin: string): ActionOutcome {
    return this.act('unvalet', [pin], () => (this.set({ 'v.e.valet': false }), 'ok'));
  }

  homelink(button: number, durationMs: number): ActionOutcome {
    return this.act('homelink', [button, durationMs], () => 'unsupported');
  }

  climate(on: boolean): ActionOutcome {
    return this.act('climate', [on], () => (this.set({ 'v.e.hvac': on }), 'ok'));
  }

  wakeup(): ActionOutcome {
    return this.act('wakeup', [], () => (this.set({ 'v.e.on': true, 'v.e.awake': true }), 'ok'));
  }
}
