/**
 * `GET /api/battery/<VEHICLEID>` (docs/web-api.md "Battery"): the battery's health from every
 * session of the vehicle (src/core/drives/battery.ts): the capacity estimated per charge, its
 * current estimate, the highest and the degradation against it, the car's own SOH series, and the
 * SOC lost per day while parked.
 */
import { batteryReport, type BatteryReport } from '../../core/drives/battery.js';
import { ownVehicle, type ApiRoute } from '../api-call.js';
import { notYours } from './session.js';
import { allSessions, notFound, sendOrdered } from './sessions-common.js';

/** The report in the documented key order. */
export function batteryJson(r: BatteryReport): BatteryReport {
  return {
    capacity: { estimate: r.capacity.estimate, max: r.capacity.max, degradation: r.capacity.degradation },
    samples: r.samples.map((s) => ({ t: s.t, capacity: s.capacity, socGain: s.socGain, energy: s.energy })),
    soh: r.soh.map(([t, soh]): [number, number] => [t, soh]),
    vampireDrain: {
      perDay: r.vampireDrain.perDay,
      samples: r.vampireDrain.samples.map((s) => ({ start: s.start, end: s.end, socLost: s.socLost, perDay: s.perDay })),
    },
  };
}

export const battery: ApiRoute = {
  async handler(call) {
    const vehicle = await ownVehicle(call, 'view');
    if (!vehicle) return notYours(call);
    if (call.args.length > 1) return notFound(call, 'GET /api/battery/<vehicle>');
    const { drives, charges } = await allSessions(call.ctx.store, vehicle.id);
    return sendOrdered(call.reply, 200, batteryJson(batteryReport(drives, charges)));
  },
};
