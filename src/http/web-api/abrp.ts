/**
 * A vehicle's link to its owner's ABRP account (docs/web-api.md "ABRP", docs/abrp.md):
 * `GET /api/abrp/<VEHICLEID>` shows the link's state (never the token), `PUT` with
 * `{"token":"…"}` (JSON or a form body, never the query string) links it or links it again,
 * `DELETE` unlinks it. Reading needs a login; changing needs the right `abrp.admin` (or `admin`; a
 * web session has every right). Another owner's vehicle is refused as an unknown one.
 */
import { audit } from '../../util/audit.js';
import type { AbrpLink } from '../../store/abrp-store.js';
import { clientAddress } from '../params.js';
import { isRefusal, ownVehicle, refuse, type ApiCall, type ApiRoute } from '../api-call.js';
import { sendError, status } from '../reply.js';
import { badInput, notFound, sendOrdered } from './sessions-common.js';
import { notYours } from './session.js';

const CHANGE_RIGHTS = ['abrp.admin', 'admin'] as const;

/** The longest token taken (ABRP's are UUIDs). */
export const MAX_TOKEN_LENGTH = 256;

/** The link as the API shows it, in the documented key order: never the token. */
export function abrpJson(vehicleId: string, configured: boolean, link: AbrpLink | undefined) {
  return {
    vehicleId,
    configured,
    linked: link !== undefined,
    state: link?.state ?? null,
    since: link?.created ?? null,
    lastSent: link?.lastSent ?? null,
    lastError: link && link.lastError !== '' ? link.lastError : null,
    lastErrorTime: link?.lastErrorTime ?? null,
    retryAt: link?.state === 'failing' ? link.retryAt : null,
  };
}

/** The token of the request's body (JSON or a form), never of its query string. */
function bodyToken(call: ApiCall): unknown {
  const b = call.req.body;
  return b !== null && typeof b === 'object' && !Buffer.isBuffer(b) ? (b as Record<string, unknown>).token : undefined;
}

/** `GET /api/abrp/<VEHICLEID>`. */
export const readAbrp: ApiRoute = {
  async handler(call) {
    if (call.args.length !== 1) return notFound(call, 'GET /api/abrp/<vehicle>');
    const v = await ownVehicle(call, 'owner');
    if (!v || isRefusal(v)) return v ? refuse(call, v) : notYours(call);
    const link = await call.ctx.store.abrp.getLink(v.id);
    return sendOrdered(call.reply, 200, abrpJson(v.id, call.ctx.abrp?.configured ?? false, link));
  },
};

/** `PUT /api/abrp/<VEHICLEID>` with `{"token":"…"}`: 200 and the link, state `pending`. */
export const linkAbrp: ApiRoute = {
  rights: CHANGE_RIGHTS,
  async handler(call) {
    const { ctx, principal } = call;
    if (call.args.length !== 1) return notFound(call, 'PUT /api/abrp/<vehicle>');
    const v = await ownVehicle(call, 'owner');
    if (!v || isRefusal(v)) return v ? refuse(call, v) : notYours(call);
    if (!ctx.abrp?.configured) {
      return sendError(call.reply, { code: 'VTS_ERR_ABRP_OFF', message: 'ABRP is not configured on this server: the operator has not set --abrp-api-key' });
    }
    const token = bodyToken(call);
    if (typeof token !== 'string' || !/^[\x21-\x7e]+$/.test(token.trim()) || token.trim().length > MAX_TOKEN_LENGTH) {
      return badInput(call, `token: your ABRP user token, 1 to ${MAX_TOKEN_LENGTH} printable characters without spaces, in the body`);
    }
    const link = await ctx.abrp.link(v.id, principal.ownerId, token.trim());
    audit(ctx.log, 'abrp.link', principal.ownerName, 'http', { user: principal.ownerName, vehicle: v.id, client: clientAddress(call.req) });
    return sendOrdered(call.reply, 200, abrpJson(v.id, true, link));
  },
};

/** `DELETE /api/abrp/<VEHICLEID>`: 204; 404 when it was not linked. */
export const unlinkAbrp: ApiRoute = {
  rights: CHANGE_RIGHTS,
  async handler(call) {
    const { ctx, principal } = call;
    if (call.args.length !== 1) return notFound(call, 'DELETE /api/abrp/<vehicle>');
    const v = await ownVehicle(call, 'owner');
    if (!v || isRefusal(v)) return v ? refuse(call, v) : notYours(call);
    const removed = ctx.abrp ? await ctx.abrp.unlink(v.id) : await ctx.store.abrp.removeLink(v.id);
    if (!removed) return notFound(call, 'the vehicle is not linked to ABRP');
    audit(ctx.log, 'abrp.unlink', principal.ownerName, 'http', { user: principal.ownerName, vehicle: v.id, client: clientAddress(call.req) });
    return status(call.reply, 204).send();
  },
};
