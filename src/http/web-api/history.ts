/**
 * `GET /api/history/<VEHICLEID>?from=&to=` (docs/web-api.md "History"): chart series and trips.
 * The series come from src/core/records/history.ts, the trips from trips.ts (plausible odometer
 * growth only).
 */
import { buildHistory, type HistoryRecord } from '../../core/records/history.js';
import { findTrips } from '../../core/records/trips.js';
import { ownVehicle, type ApiRoute } from '../api-call.js';
import { sendError, sendJson } from '../reply.js';
import { notYours } from './session.js';

/** The longest period one request may cover (seconds). */
const MAX_PERIOD = 31 * 86400;

function epoch(text: string | undefined, fallback: number): number | null {
  if (text === undefined || text === '') return fallback;
  return /^\d{1,12}$/.test(text) ? Number(text) : null;
}

export const history: ApiRoute = {
  async handler(call) {
    const { ctx, reply, params } = call;
    const vehicle = await ownVehicle(call, 'view');
    if (!vehicle) return notYours(call);
    const now = ctx.hub.seconds();
    const to = epoch(params.to, now);
    const from = to === null ? null : epoch(params.from, to - 86400);
    if (from === null || to === null || from > to || to - from > MAX_PERIOD) {
      return sendError(reply, { code: 'VTS_ERR_INVALID_INPUT', message: `from and to: epoch seconds, from ≤ to, at most ${MAX_PERIOD / 86400} days apart` });
    }
    const records: HistoryRecord[] = [];
    for (const code of ['S', 'D', 'L']) {
      for (const r of await ctx.store.getHistorical(vehicle.id, code, from - 1)) {
        if (r.time >= from && r.time <= to) records.push({ code, time: r.time, data: r.data });
      }
    }
    const h = buildHistory(records);
    const pos = (p: { lat: number; lon: number } | null) => (p ? { lat: p.lat, lon: p.lon } : null);
    const trips = findTrips(records, h.units).map((t) => ({ ...t, from: pos(t.from), to: pos(t.to) }));
    return sendJson(reply, 200, { from, series: { ...h.series }, to, trips, units: h.units });
  },
};
