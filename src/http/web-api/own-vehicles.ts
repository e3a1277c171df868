/**
 * An owner's own vehicles (docs/accounts.md "Own vehicles", docs/web-api.md "Own vehicles"):
 * `POST /api/account/vehicles` adds one (id, car password, name), `GET` lists the caller's
 * vehicles and those shared with it, `PUT /api/account/vehicles/<ID>` renames it or changes its car
 * password, `DELETE /api/account/vehicles/<ID>` removes it with all its data after a confirmation
 * (`{"confirm":"<ID>"}`). The car password is never given back, to anyone. The fields come in the
 * body (JSON or form), never the query string, where `password` is the API v2 login's.
 */
import { visibleVehicles } from '../../auth/vehicle-access.js';
import { CAR_PASSWORD, MAX_VEHICLE_NAME, VEHICLE_ID } from '../../core/auth/identifier-rules.js';
import { isVtsError } from '../../errors.js';
import type { Vehicle } from '../../store/store.js';
import type { AuditAction } from '../../auth/audit-log.js';
import { isRefusal, ownVehicle, refuse, type ApiCall, type ApiRoute } from '../api-call.js';
import { clientAddress } from '../params.js';
import { sendError, sendJson, status } from '../reply.js';
import { notYours } from './session.js';
import { badInput, notFound } from './sessions-common.js';

/** The rights that change an account's vehicles and their shares (a login with `*` has them). */
export const VEHICLE_RIGHTS = ['vehicle.admin', 'admin'] as const;

/** Records an owner's action on a vehicle in the audit log (src/auth/audit-log.ts; never a secret). */
export function record(call: ApiCall, action: AuditAction, vehicleId: string, detail: Record<string, string | number | boolean>): Promise<void> {
  return call.ctx.audit.record({
    action,
    actor: call.principal.ownerName,
    via: call.principal.session?.csrf ? 'web' : 'api',
    target: vehicleId,
    detail: { ...detail, client: clientAddress(call.req) },
  });
}

/** The most vehicles one account may add itself (the operator's CLI is not bound). */
export const MAX_OWN_VEHICLES = 100;

/** A vehicle as the caller sees it: never its car password. */
export function vehicleJson(ctx: ApiCall['ctx'], v: Vehicle, access: 'owner' | 'control' | 'view') {
  return {
    access,
    created: v.created,
    id: v.id,
    lastUpdate: v.lastUpdate,
    name: v.name,
    online: ctx.hub.counts(v.id).net > 0,
    owner: v.ownerName,
    type: v.type,
  };
}

/** The problem of a vehicle name, null when it is fine (the rules of `vts vehicle add`). */
function nameProblem(name: string): string | null {
  if (name.length > MAX_VEHICLE_NAME) return `name: at most ${MAX_VEHICLE_NAME} characters`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'name: no control characters';
  return null;
}

/**
 * A field of the request's body (JSON or form), never of the query string: there `password` is the
 * login's (the API v2 takes `username` and `password` in the query), here it is the car password.
 */
function field(call: ApiCall, name: string): string | undefined {
  const body = call.req.body as Record<string, unknown> | null | undefined;
  if (!body || typeof body !== 'object') return undefined;
  const v = body[name];
  return typeof v === 'string' ? v : undefined;
}

const passwordProblem = (p: string): string | null => (CAR_PASSWORD.test(p) ? null : 'password: the car password, 1-255 characters without whitespace');

export const addOwnVehicle: ApiRoute = {
  rights: VEHICLE_RIGHTS,
  async handler(call) {
    const { ctx, principal } = call;
    if (call.args.length !== 1) return notFound(call, 'POST /api/account/vehicles');
    const id = field(call, 'id') ?? '';
    if (!VEHICLE_ID.test(id)) return badInput(call, 'id: 1-32 characters of A-Z a-z 0-9 . _ - (stored upper-cased)');
    const password = field(call, 'password') ?? '';
    const name = field(call, 'name') ?? '';
    const problem = passwordProblem(password) ?? nameProblem(name);
    if (problem) return badInput(call, problem);
    if ((await ctx.store.listVehicles(principal.ownerId)).length >= MAX_OWN_VEHICLES) {
      return badInput(call, `you have ${MAX_OWN_VEHICLES} vehicles already: remove one first`);
    }
    let v: Vehicle;
    try {
      v = await ctx.store.addVehicle({ id, ownerId: principal.ownerId, name, carPassword: password });
    } catch (err) {
      if (isVtsError(err, 'VTS_ERR_DUPLICATE_VEHICLE')) return sendError(call.reply, { code: 'VTS_ERR_DUPLICATE_VEHICLE', message: `the id ${id.toUpperCase()} is taken: choose another` });
      throw err;
    }
    await record(call, 'vehicle.add', v.id, {});
    return sendJson(call.reply, 201, vehicleJson(ctx, v, 'owner'));
  },
};

export const listOwnVehicles: ApiRoute = {
  async handler(call) {
    if (call.args.length !== 1) return notFound(call, 'GET /api/account/vehicles');
    const list = await visibleVehicles(call.ctx.store, call.principal.ownerId);
    return sendJson(call.reply, 200, list.map((a) => vehicleJson(call.ctx, a.vehicle, a.access)));
  },
};

/** The caller's own vehicle of the first argument; else the answer is sent and undefined returned. */
export async function owned(call: ApiCall): Promise<Vehicle | undefined> {
  const v = await ownVehicle(call, 'owner');
  if (!v) {
    notYours(call);
    return undefined;
  }
  if (isRefusal(v)) {
    refuse(call, v);
    return undefined;
  }
  return v;
}

/** The caller's own vehicle of `/api/account/vehicles/<ID>`, as `owned`. */
const ownedOf = (call: ApiCall) => owned({ ...call, args: call.args.slice(1) });

export const changeOwnVehicle: ApiRoute = {
  rights: VEHICLE_RIGHTS,
  async handler(call) {
    const { ctx } = call;
    if (call.args.length !== 2) return notFound(call, 'PUT /api/account/vehicles/<vehicle>');
    const v = await ownedOf(call);
    if (!v) return call.reply;
    const name = field(call, 'name');
    const password = field(call, 'password');
    if (name === undefined && password === undefined) return badInput(call, 'name or password: what to change');
    const problem = (password === undefined ? null : passwordProblem(password)) ?? (name === undefined ? null : nameProblem(name));
    if (problem) return badInput(call, problem);
    const changed = await ctx.store.updateVehicle(v.id, { ...(name === undefined ? {} : { name }), ...(password === undefined ? {} : { carPassword: password }) });
    if (!changed) return notYours(call);
    await record(call, 'vehicle.change', v.id, { renamed: name !== undefined, password: password !== undefined });
    return sendJson(call.reply, 200, vehicleJson(ctx, changed, 'owner'));
  },
};

/** `confirm` of the body or the query string. */
const confirmation = (call: ApiCall): string => field(call, 'confirm') ?? call.params.confirm ?? '';

export const removeOwnVehicle: ApiRoute = {
  rights: VEHICLE_RIGHTS,
  async handler(call) {
    const { ctx } = call;
    if (call.args.length !== 2) return notFound(call, 'DELETE /api/account/vehicles/<vehicle>');
    const v = await ownedOf(call);
    if (!v) return call.reply;
    if (confirmation(call).toUpperCase() !== v.id) {
      return badInput(call, `confirm: the vehicle id (${v.id}), to remove it with all its data`);
    }
    const shares = await ctx.store.shares.listShares(v.id);
    if (!(await ctx.store.removeVehicle(v.id))) return notYours(call);
    for (const s of shares) ctx.hub.access.revoke(v.id, s.userId);
    await record(call, 'vehicle.remove', v.id, {});
    return status(call.reply, 204).send();
  },
};
