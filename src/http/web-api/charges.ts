/**
 * The vehicle's charges (docs/web-api.md "Drives and charges"):
 * - `GET /api/charges/<VEHICLEID>?from=&to=[&format=csv]`: the charges that overlap the period
 *   (default: the last 30 days), oldest first, as JSON or CSV;
 * - `GET /api/charges/<VEHICLEID>/<id>`: one charge with its samples (SOC, power and energy over
 *   the charge, which the dashboard draws).
 */
import { chargeJson, chargesCsv } from '../../core/drives/export.js';
import type { ChargeSample } from '../../core/drives/types.js';
import { ownVehicle, type ApiCall, type ApiRoute } from '../api-call.js';
import type { StoredCharge } from '../../store/drives-store.js';
import { sendCsv } from '../records-csv.js';
import { status } from '../reply.js';
import { fullPeriod, RenderedLists } from './rendered-lists.js';
import { notYours } from './session.js';
import { badInput, idOf, LIST_SPAN, listFormat, MAX_LIST_SPAN, notFound, requestRange, safeFilename, sendOrdered } from './sessions-common.js';

/** A charge's samples in the documented key order. */
const samplesJson = (samples: readonly ChargeSample[]): ChargeSample[] =>
  samples.map((s) => ({ t: s.t, soc: s.soc, power: s.power, energy: s.energy, grid: s.grid }));

/** `ownerId`: the vehicle's owner, whose places name the charges (also for a user the vehicle is shared with). */
async function list(call: ApiCall, vehicleId: string, ownerId: number) {
  const { ctx, params } = call;
  const format = listFormat(params);
  if (format === null) return badInput(call, 'format: json or csv');
  const range = requestRange(params, ctx.hub.seconds(), LIST_SPAN, MAX_LIST_SPAN);
  if ('field' in range) return badInput(call, range.message);
  const [charges, places] = await Promise.all([ctx.store.drives.listCharges(vehicleId, range.from, range.to, false), ctx.store.drives.listPlaces(ownerId)]);
  const now = ctx.hub.seconds();
  if (format === 'csv') {
    const rows = charges.map((c) => chargeJson(c, places, now));
    return sendCsv(call.reply, safeFilename(`charges-${vehicleId}-${range.from}-${range.to}`) + '.csv', chargesCsv(rows));
  }
  // the place names are what a charge's JSON depends on
  const context = JSON.stringify(places.map((p) => [p.id, p.name]));
  const body = rendered.body(fullPeriod(params) ? { vehicleId, ...range } : null, charges, context, (c) => JSON.stringify(chargeJson(c, places, now)));
  return status(call.reply, 200).header('content-type', 'application/json').send(body);
}

const rendered = new RenderedLists<StoredCharge>((c) => c.end !== null);

export const charges: ApiRoute = {
  async handler(call) {
    const { ctx } = call;
    const vehicle = await ownVehicle(call, 'view');
    if (!vehicle) return notYours(call);
    const [, idText, ...more] = call.args;
    if (idText === undefined || (idText === '' && more.length === 0)) return list(call, vehicle.id, vehicle.ownerId);
    if (more.length > 0) return notFound(call, 'GET /api/charges/<vehicle>[/<id>]');
    const id = idOf(idText);
    const c = id === null ? undefined : await ctx.store.drives.getCharge(vehicle.id, id);
    if (!c) return notFound(call, 'no such charge');
    const places = await ctx.store.drives.listPlaces(vehicle.ownerId);
    return sendOrdered(call.reply, 200, { ...chargeJson(c, places, ctx.hub.seconds()), samples: samplesJson(c.samples) });
  },
};
