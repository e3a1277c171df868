/**
 * The vehicle's drives (docs/web-api.md "Drives and charges"):
 * - `GET /api/drives/<VEHICLEID>?from=&to=[&format=csv]`: the drives that overlap the period
 *   (default: the last 30 days), oldest first, as JSON (without their routes) or CSV;
 * - `GET /api/drives/<VEHICLEID>/<id>`: one drive with its route (`path`);
 * - `GET /api/drives/<VEHICLEID>/<id>/gpx`: the drive as GPX 1.1.
 * The shapes come from src/core/drives/export.ts; the store keeps the sessions.
 */
import { driveGpx, driveJson, drivesCsv, type DriveJson } from '../../core/drives/export.js';
import type { StoredDrive } from '../../store/drives-store.js';
import { ownVehicle, type ApiCall, type ApiRoute } from '../api-call.js';
import { sendCsv } from '../records-csv.js';
import { status } from '../reply.js';
import { fullPeriod, RenderedLists } from './rendered-lists.js';
import { notYours } from './session.js';
import { badInput, capacityFor, idOf, LIST_SPAN, listFormat, MAX_LIST_SPAN, notFound, requestRange, safeFilename, sendOrdered } from './sessions-common.js';

export const GPX_CONTENT_TYPE = 'application/gpx+xml';

/** `ownerId`: the vehicle's owner, whose places name the drives (also for a user the vehicle is shared with). */
async function list(call: ApiCall, vehicleId: string, ownerId: number) {
  const { ctx, params } = call;
  const format = listFormat(params);
  if (format === null) return badInput(call, 'format: json or csv');
  const range = requestRange(params, ctx.hub.seconds(), LIST_SPAN, MAX_LIST_SPAN);
  if ('field' in range) return badInput(call, range.message);
  const [drives, places] = await Promise.all([ctx.store.drives.listDrives(vehicleId, range.from, range.to, false), ctx.store.drives.listPlaces(ownerId)]);
  const capacity = await capacityFor(ctx.store, vehicleId, drives);
  const now = ctx.hub.seconds();
  if (format === 'csv') {
    const rows = drives.map((d) => driveJson(d, places, capacity, now));
    return sendCsv(call.reply, safeFilename(`drives-${vehicleId}-${range.from}-${range.to}`) + '.csv', drivesCsv(rows));
  }
  // the places and capacity that a drive's JSON depends on
  const context = JSON.stringify([capacity, places.map((p) => [p.id, p.name])]);
  const body = rendered.body(fullPeriod(params) ? { vehicleId, ...range } : null, drives, context, (d) => JSON.stringify(driveJson(d, places, capacity, now)));
  return status(call.reply, 200).header('content-type', 'application/json').send(body);
}

const rendered = new RenderedLists<StoredDrive>((d) => d.end !== null);

/** One drive as JSON with its route; undefined when the vehicle has no such drive. */
async function oneDrive(call: ApiCall, vehicleId: string, id: number | null, ownerId: number): Promise<DriveJson | undefined> {
  const { ctx } = call;
  if (id === null) return undefined;
  const d: StoredDrive | undefined = await ctx.store.drives.getDrive(vehicleId, id);
  if (!d) return undefined;
  const places = await ctx.store.drives.listPlaces(ownerId);
  const capacity = await capacityFor(ctx.store, vehicleId, [d]);
  return driveJson(d, places, capacity, ctx.hub.seconds(), true);
}

export const drives: ApiRoute = {
  async handler(call) {
    const vehicle = await ownVehicle(call, 'view');
    if (!vehicle) return notYours(call);
    const [, idText, what, ...more] = call.args;
    if (idText === undefined || (idText === '' && what === undefined)) return list(call, vehicle.id, vehicle.ownerId);
    if (more.length > 0 || (what !== undefined && what !== 'gpx')) return notFound(call, 'GET /api/drives/<vehicle>[/<id>[/gpx]]');
    const drive = await oneDrive(call, vehicle.id, idOf(idText), vehicle.ownerId);
    if (!drive) return notFound(call, 'no such drive');
    if (what === undefined) return sendOrdered(call.reply, 200, drive);
    return status(call.reply, 200)
      .header('content-type', GPX_CONTENT_TYPE)
      .header('content-disposition', `attachment; filename="${safeFilename(`drive-${vehicle.id}-${drive.id}`)}.gpx"`)
      .send(driveGpx(drive, vehicle.id));
  },
};
