/**
 * What the console and the links of the module emulator need from the emulated vehicle. The
 * vehicle's whole state is its metrics (docs/protocol/mqtt-v3.md §10); commands change the vehicle through these
 * actions, and every link sees the change through the metrics.
 */
import type { MetricSet } from '../../core/metrics/metric-set.js';

/** The firmware's three outcomes of a vehicle command (docs/protocol/module-console.md §4.3). */
export type ActionOutcome = 'ok' | 'failed' | 'unsupported';

export type ChargeMode = 'standard' | 'storage' | 'range' | 'performance';

export interface VehicleActions {
  chargeStart(): ActionOutcome;
  chargeStop(): ActionOutcome;
  chargeMode(mode: ChargeMode): ActionOutcome;
  chargeCurrent(amps: number): ActionOutcome;
  chargeCooldown(): ActionOutcome;
  lock(pin: string): ActionOutcome;
  unlock(pin: string): ActionOutcome;
  valet(pin: string): ActionOutcome;
  unvalet(pin: string): ActionOutcome;
  /** button 1..3 (range checked by the console), duration in ms (≥ 100, checked by the console). */
  homelink(button: number, durationMs: number): ActionOutcome;
  climate(on: boolean): ActionOutcome;
  wakeup(): ActionOutcome;
}

export interface EmulatedVehicle extends VehicleActions {
  /** The vehicle id on the servers (e.g. `EMU0001`). */
  readonly id: string;
  /** Vehicle type code (`v.type`, e.g. `DEMO`) and its name (`Demonstration Vehicle`). */
  readonly typeCode: string;
  readonly typeName: string;
  readonly metrics: MetricSet;
  /** The module's clock in epoch seconds (simulated time when sped up). */
  now(): number;
}
