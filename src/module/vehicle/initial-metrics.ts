/**
 * The emulated car as the module starts it: its fixed figures (battery, range) and the first
 * value of every metric it keeps (docs/protocol/mqtt-v3.md §10), a few of them drawn from the seed.
 */
import type { MetricValue } from '../../core/metrics/metric.js';
import type { Random } from './random.js';
import type { Point } from './route.js';

export const CAPACITY_KWH = 64;
export const FULL_RANGE_KM = 400;

/** `v` rounded to `decimals` places, as a number. */
export const round = (v: number, decimals: number) => Number(v.toFixed(decimals));

export interface InitialOptions {
  id: string;
  seed: number;
  vin?: string;
  firmware?: string;
}

/** The metrics of a car `typeCode` parked at `home`, in the order they are set; draws from `rng` (state of charge, odometer). */
export function initialMetrics(opts: InitialOptions, home: Point, rng: Random, typeCode: string): [string, MetricValue][] {
  const vin = opts.vin ?? ('VTSEMU' + opts.id.replace(/[^A-Z0-9]/gi, '').toUpperCase()).padEnd(17, '0').slice(0, 17);
  return [
    ['m.version', opts.firmware ?? '3.3.006-vts/ota_0/main (build vts-emulator)'],
    ['m.hardware', 'OVMS WIFI BLE BT cores=2 rev=ESP32/3; MODEM SIM7600 (vts emulator)'],
    ['m.net.type', 'modem'],
    ['m.net.sq', -71],
    ['m.net.provider', 'vts-emulated'],
    ['m.net.connected', true],
    ['m.net.ip', true],
    ['m.net.good.sq', true],
    ['m.net.mdm.network', 'vts-emulated'],
    ['m.net.mdm.sq', -71],
    ['m.net.mdm.model', 'SIMCOM_SIM7600G'],
    ['m.net.mdm.mode', 'LTE,Online'],
    ['m.net.mdm.iccid', '8949' + String(opts.seed >>> 0).padStart(15, '0').slice(-15)],
    ['m.tasks', 84],
    ['v.type', typeCode],
    ['v.vin', vin],
    ['v.b.soc', round(rng.range(55, 90), 1)],
    ['v.b.soh', 100],
    ['v.b.cac', 160],
    ['v.b.capacity', CAPACITY_KWH],
    ['v.b.health', 'good'],
    ['v.b.temp', 20],
    ['v.b.12v.voltage', 12.6],
    ['v.b.12v.voltage.ref', 12.6],
    ['v.b.12v.current', 0.4],
    ['v.b.energy.used', 0],
    ['v.b.energy.recd', 0],
    ['v.b.energy.used.total', 0],
    ['v.b.energy.recd.total', 0],
    ['v.b.range.full', FULL_RANGE_KM],
    ['v.c.charging', false],
    ['v.c.state', 'done'],
    ['v.c.substate', 'stopped'],
    ['v.c.mode', 'standard'],
    ['v.c.type', 'type2'],
    ['v.c.pilot', false],
    ['v.c.climit', 32],
    ['v.c.voltage', 0],
    ['v.c.current', 0],
    ['v.c.power', 0],
    ['v.c.efficiency', 0],
    ['v.c.kwh', 0],
    ['v.c.kwh.grid', 0],
    ['v.c.kwh.grid.total', 0],
    ['v.c.time', 0],
    ['v.c.timermode', false],
    ['v.c.timerstart', 0],
    ['v.c.limit.soc', 90],
    ['v.c.temp', 20],
    ['v.d.fl', false],
    ['v.d.fr', false],
    ['v.d.rl', false],
    ['v.d.rr', false],
    ['v.d.cp', false],
    ['v.d.hood', false],
    ['v.d.trunk', false],
    ['v.e.on', false],
    ['v.e.awake', false],
    ['v.e.locked', true],
    ['v.e.valet', false],
    ['v.e.headlights', false],
    ['v.e.alarm', false],
    ['v.e.handbrake', true],
    ['v.e.hvac', false],
    ['v.e.cooling', false],
    ['v.e.heating', false],
    ['v.e.aux12v', false],
    ['v.e.charging12v', false],
    ['v.e.gear', 0],
    ['v.e.drivemode', 0],
    ['v.e.parktime', 0],
    ['v.e.drivetime', 0],
    ['v.e.temp', 15],
    ['v.e.cabintemp', 16],
    ['v.e.cabinsetpoint', 21],
    ['v.i.temp', 20],
    ['v.i.power', 0],
    ['v.i.efficiency', 0],
    ['v.m.temp', 20],
    ['v.m.rpm', 0],
    ['v.p.latitude', round(home.lat, 6)],
    ['v.p.longitude', round(home.lon, 6)],
    ['v.p.altitude', 520],
    ['v.p.direction', 0],
    ['v.p.speed', 0],
    ['v.p.gpsspeed', 0],
    ['v.p.odometer', round(rng.range(5000, 60000), 1)],
    ['v.p.trip', 0],
    ['v.p.gpslock', true],
    ['v.p.gpsmode', 'AA'],
    ['v.p.satcount', 12],
    ['v.p.gpshdop', 0.9],
    ['v.p.gpssq', 85],
    ['v.t.pressure', [250, 250, 245, 245]],
    ['v.t.temp', [15, 15, 15, 15]],
    ['v.t.health', [100, 100, 100, 100]],
    ['v.t.alert', [0, 0, 0, 0]],
  ];
}
