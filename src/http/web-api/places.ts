/**
 * The caller's places (docs/web-api.md "Places"): `GET /api/places`, `POST /api/places`,
 * `PUT /api/places/<id>`, `DELETE /api/places/<id>`. A place is a circle with a tariff; a JSON
 * body, checked by src/core/drives/places.ts `checkPlace` (a bad value is a 400 that names its
 * field). Every change re-tags and re-prices the caller's earlier sessions (retag.ts) before the
 * answer.
 */
import { checkPlace } from '../../core/drives/places.js';
import type { Place } from '../../core/drives/types.js';
import type { ApiCall, ApiRoute } from '../api-call.js';
import { status } from '../reply.js';
import { clientAddress } from '../params.js';
import { audit } from '../../util/audit.js';
import { retagOwner } from './retag.js';
import { badInput, idOf, notFound, sendOrdered } from './sessions-common.js';

/** A place in the documented key order. */
export function placeJson(p: Place): Place {
  return {
    id: p.id,
    name: p.name,
    lat: p.lat,
    lon: p.lon,
    radius: p.radius,
    timezone: p.timezone,
    currency: p.currency,
    pricePerKwh: p.pricePerKwh,
    pricePerMinute: p.pricePerMinute,
    sessionFee: p.sessionFee,
    timeOfUse: p.timeOfUse.map((w) => ({ from: w.from, to: w.to, pricePerKwh: w.pricePerKwh })),
  };
}

/** The request's JSON object (a form or no body: an empty one, whose missing name is the 400). */
function body(call: ApiCall): unknown {
  const b = call.req.body;
  return b !== null && typeof b === 'object' && !Buffer.isBuffer(b) ? b : {};
}

/** The message of a bad field, starting with the field's name. */
const fieldMessage = (field: string, message: string) => (message.startsWith(field) ? message : `${field}: ${message}`);

async function retag(call: ApiCall): Promise<void> {
  const { ctx, principal } = call;
  // the alerts' place rules see the change at once (other nodes within a minute)
  ctx.alerts?.placesChanged(principal.ownerId);
  const places = await ctx.store.drives.listPlaces(principal.ownerId);
  const changed = await retagOwner(ctx.store, principal.ownerId, places);
  ctx.log.info({ user: principal.ownerName, sessions: changed }, 'sessions re-tagged after a place changed');
}

/** `GET /api/places`: ordered by id. */
export const listPlaces: ApiRoute = {
  async handler(call) {
    if (call.args.length > 0 && !(call.args.length === 1 && call.args[0] === '')) return notFound(call, 'GET /api/places');
    const places = await call.ctx.store.drives.listPlaces(call.principal.ownerId);
    return sendOrdered(call.reply, 200, places.map(placeJson));
  },
};

/** `POST /api/places` with the place: 201 and the place with its id. */
export const addPlace: ApiRoute = {
  async handler(call) {
    const { ctx, principal } = call;
    if (call.args.length > 0 && !(call.args.length === 1 && call.args[0] === '')) return notFound(call, 'POST /api/places');
    const check = checkPlace(body(call));
    if (!check.ok) return badInput(call, fieldMessage(check.field, check.message));
    const place = await ctx.store.drives.addPlace(principal.ownerId, check.place);
    await retag(call);
    return sendOrdered(call.reply, 201, placeJson(place));
  },
};

/** `PUT /api/places/<id>` with the whole place: 200 and the place. */
export const changePlace: ApiRoute = {
  async handler(call) {
    const { ctx, principal, args } = call;
    const id = args.length === 1 ? idOf(args[0]) : null;
    if (id === null) return notFound(call, 'no such place');
    const check = checkPlace(body(call));
    if (!check.ok) return badInput(call, fieldMessage(check.field, check.message));
    const place = await ctx.store.drives.updatePlace(principal.ownerId, id, check.place);
    if (!place) return notFound(call, 'no such place');
    await retag(call);
    return sendOrdered(call.reply, 200, placeJson(place));
  },
};

/** The alert rules of the caller's vehicles that name a place just removed go with it (they could never fire again). */
async function removePlaceRules(call: ApiCall, placeId: number): Promise<void> {
  const { ctx, principal } = call;
  for (const vehicle of await ctx.store.listVehicles(principal.ownerId)) {
    let removed = 0;
    for (const rule of await ctx.store.alerts.listRules(vehicle.id)) {
      if ((rule.kind === 'place-arrive' || rule.kind === 'place-leave') && rule.place === placeId && (await ctx.store.alerts.removeRule(vehicle.id, rule.id))) removed++;
    }
    if (removed === 0) continue;
    ctx.alerts?.rulesChanged(vehicle.id);
    audit(ctx.log, 'alert.remove', principal.ownerName, 'http', { user: principal.ownerName, vehicle: vehicle.id, place: placeId, rules: removed, client: clientAddress(call.req) });
  }
}

/** `DELETE /api/places/<id>`: 204; the place rules that name it are removed too. */
export const removePlace: ApiRoute = {
  async handler(call) {
    const { ctx, principal, args } = call;
    const id = args.length === 1 ? idOf(args[0]) : null;
    if (id === null || !(await ctx.store.drives.removePlace(principal.ownerId, id))) return notFound(call, 'no such place');
    await removePlaceRules(call, id);
    await retag(call);
    return status(call.reply, 204).send();
  },
};
