/**
 * `GET /api/vehicles`, and `GET`/`DELETE /api/vehicle/<VEHICLEID>`, which register and
 * unregister the caller as an app of the vehicle (docs/protocol/http-api-v2.md §4.4–§4.6, §4.5).
 */
import { vehicleConnectBody, vehicleListRow } from '../../core/records/lists.js';
import { forbidden, sendJson, sendJsonText } from '../reply.js';
import { clientAddress } from '../params.js';
import { ownVehicle, type ApiCall, type ApiRoute } from '../api-call.js';
import { visibleVehicles } from '../../auth/vehicle-access.js';

export const listVehicles: ApiRoute = {
  async handler({ ctx, reply, principal }) {
    // a vehicle shared with the caller appears like an own one
    const vehicles = await visibleVehicles(ctx.store, principal.ownerId);
    return sendJson(reply, 200, vehicles.map(({ vehicle: v }) => vehicleListRow(v.id, ctx.hub.counts(v.id))));
  },
};

/** The caller's session, or the anonymous registration of a cookie-less caller. */
function sessionOf(call: ApiCall, create: boolean) {
  const { ctx, principal, req } = call;
  return (
    principal.session ??
    ctx.sessions.anonymous({ id: principal.ownerId, name: principal.ownerName }, principal.permit, clientAddress(req), create)
  );
}

export const connectVehicle: ApiRoute = {
  async handler(call) {
    const { ctx, reply } = call;
    const vehicle = await ownVehicle(call, 'view');
    if (!vehicle) return forbidden(reply);
    const firstPeer = await ctx.sessions.connect(sessionOf(call, true)!, vehicle.id, vehicle.ownerId);
    const messages = await ctx.store.getCarMessages(vehicle.id);
    const sTime = messages.find((m) => m.code === 'S')?.time;
    return sendJson(reply, 200, vehicleConnectBody(ctx.hub.counts(vehicle.id), firstPeer, sTime, ctx.hub.seconds()));
  },
};

export const disconnectVehicle: ApiRoute = {
  async handler(call) {
    const { ctx, reply } = call;
    const vehicle = await ownVehicle(call, 'view');
    if (!vehicle) return forbidden(reply);
    const session = sessionOf(call, false);
    if (session) ctx.sessions.disconnect(session, vehicle.id);
    // REF: a JSON content type with a plain-text body
    return sendJsonText(reply, 200, 'Disconnect OK\n');
  },
};
