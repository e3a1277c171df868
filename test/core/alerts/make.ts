/** Builders for the alert engine tests: records as the car sends them, a runner that keeps the state. */
import { emptyAlertState, evaluate, type AlertContext, type AlertInput, type AlertState } from '../../../src/core/alerts/engine.js';
import type { Alert } from '../../../src/core/alerts/alert.js';
import type { AlertRule } from '../../../src/core/alerts/rules.js';

export const T0 = 1_800_000_000;

/** An `S` record: SOC, units K, charge state, range (fields 7 and 8). */
export const S = (soc: number, state: string, range = 0): AlertInput => ({ type: 'record', code: 'S', data: `${soc},K,230,16,${state},standard,${range},${range}` });
/** A `D` record with the 12 V (field 15). */
export const D = (v12: number): AlertInput => ({ type: 'record', code: 'D', data: `0,0,0,20,20,20,0,12345,0,0,15,0,0,0,${v12}` });
/** An `L` record at a position. */
export const L = (lat: number, lon: number): AlertInput => ({ type: 'record', code: 'L', data: `${lat},${lon},90,100,1,0,0` });
export const tick: AlertInput = { type: 'tick' };
export const link = (online: boolean): AlertInput => ({ type: 'link', online });

export const WORK = { id: 7, name: 'Work', lat: 52.5, lon: 13.4, radius: 200 };

export const car: AlertContext = { vehicleId: 'DEMO1', name: 'DEMO1', units: 'K', places: [WORK] };

/** Feeds inputs at given times, keeping the state (optionally through JSON between every step). */
export class Run {
  state: AlertState = emptyAlertState();
  fired: Alert[] = [];
  constructor(
    public rules: AlertRule[],
    private readonly ctx: AlertContext = car,
    private readonly roundTrip = false,
  ) {}

  /** Evaluates `input` at `t`; answers the alerts of this step. */
  at(t: number, input: AlertInput): Alert[] {
    const r = evaluate(this.state, this.rules, input, t, this.ctx);
    this.state = this.roundTrip ? (JSON.parse(JSON.stringify(r.state)) as AlertState) : r.state;
    this.fired.push(...r.fired);
    return r.fired;
  }

  /** The kinds fired so far. */
  kinds(): string[] {
    return this.fired.map((a) => a.kind);
  }
}
