/**
 * Random days for the property tests of drives and charges (fast-check): a car with or without
 * ignition and logs, playing parks, drives (some losing the connection), charges, outages and SOC
 * jumps through `ScriptedCar` (drive-records.ts).
 */
import fc from 'fast-check';
import { ScriptedCar } from './drive-records.js';

export type Step =
  | { k: 'park'; s: number; every: number }
  | { k: 'drive'; s: number; speed: number; every: number; lost: number | null }
  | { k: 'charge'; s: number; power: number; every: number; type: string }
  | { k: 'offline' }
  | { k: 'reconnect' }
  | { k: 'soc'; soc: number };

export const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ k: fc.constant('park' as const), s: fc.integer({ min: 60, max: 6 * 3600 }), every: fc.constantFrom(60, 600) }),
  fc.record({
    k: fc.constant('drive' as const),
    s: fc.integer({ min: 30, max: 5400 }),
    speed: fc.integer({ min: 1, max: 130 }),
    every: fc.constantFrom(10, 30, 600),
    lost: fc.option(fc.integer({ min: 0, max: 3000 }), { nil: null }),
  }),
  fc.record({
    k: fc.constant('charge' as const),
    s: fc.integer({ min: 60, max: 4 * 3600 }),
    power: fc.constantFrom(3.7, 7, 11, 50, 150),
    every: fc.constantFrom(60, 600),
    type: fc.constantFrom('type2', 'ccs'),
  }),
  fc.constant({ k: 'offline' as const }),
  fc.constant({ k: 'reconnect' as const }),
  fc.record({ k: fc.constant('soc' as const), soc: fc.integer({ min: 5, max: 100 }) }),
);

export const day = fc.record({
  ignition: fc.boolean(),
  logs: fc.boolean(),
  steps: fc.array(step, { minLength: 1, maxLength: 14 }),
});

/** Plays a random day; the car ends online after an hour parked. */
export function play(d: { ignition: boolean; logs: boolean; steps: Step[] }): ScriptedCar {
  const car = new ScriptedCar({ start: 1_700_000_000, ignition: d.ignition, logs: d.logs });
  car.park(1200);
  for (const s of d.steps) {
    if (s.k === 'park') car.park(s.s, s.every);
    else if (s.k === 'drive') car.drive(s.s, s.speed, s.every, s.lost ?? undefined);
    else if (s.k === 'charge') car.charge(s.s, s.power, s.every, s.type);
    else if (s.k === 'offline') car.offline();
    else if (s.k === 'reconnect') car.reconnect();
    else car.setSoc(s.soc);
  }
  car.park(3600).reconnect().park(1200);
  return car;
}

