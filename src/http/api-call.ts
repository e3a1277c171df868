/**
 * One `/api` call on its way through the hall (src/http/api-hall.ts), and the table rows a group of
 * calls registers its routes with: method, path, handler with its options, OpenAPI description.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpContext } from './context.js';
import type { Principal } from './auth.js';
import type { Operation } from './openapi/types.js';
import type { Params } from './params.js';
import type { ErrorStyle } from './reply.js';
import type { Vehicle } from '../store/store.js';
import { refusal, type Need } from '../core/auth/vehicle-access.js';
import { vehicleAccess } from '../auth/vehicle-access.js';
import { sendError } from './reply.js';

export interface ApiCall {
  ctx: HttpContext;
  req: FastifyRequest;
  reply: FastifyReply;
  principal: Principal;
  /** URL-decoded path segments after the function name (`/api/<fn>/<arg0>/<arg1>`). */
  args: string[];
  params: Params;
}

export interface ApiRoute {
  /** Any of these rights is needed (docs/protocol/http-api-v2.md §3.3); none = any authenticated caller. */
  rights?: readonly string[];
  /** The handler authenticates by itself (the web sign-in): `principal` is a placeholder. */
  public?: boolean;
  /** A request without a valid login is refused with JSON 401 `VTS_ERR_AUTH`, not REF's text line. */
  jsonUnauthorized?: boolean;
  handler(call: ApiCall): Promise<unknown> | unknown;
}

/**
 * One row of a group's table. The hall finds a call by its method and the first segment of its
 * path (`GET /api/status/…` is `GET:status`): rows that share both (one call described under
 * several paths) share their route. The OpenAPI document lists the paths in the order of the rows.
 */
export interface ApiRow {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** `/api/<call>`, then literal segments or `{name}` parameters, as the document names the path. */
  path: string;
  /** The handler and its options (rights, public, JSON 401). */
  route: ApiRoute;
  /** How the hall's and the body parsers' errors answer on this call; default: the group's. */
  errors?: ErrorStyle;
  /** Its OpenAPI operation (its rights and error style must agree with `route` and `errors`). */
  doc: Operation;
}

/** A group of `/api` calls in its folder, with its table. */
export interface ApiGroup {
  /** The group's name in the metrics and the access log (src/http/route-group.ts). */
  name: 'api_v2' | 'command_api' | 'web_api';
  /** How the hall's and the body parsers' errors answer on its calls (src/http/reply.ts `sendError`). */
  errors: ErrorStyle;
  rows: readonly ApiRow[];
}

/** A vehicle the caller sees but may not do this with: the reason, for a 403 VTS_ERR_FORBIDDEN (`refuse`). */
export interface Refused {
  refused: string;
}

/**
 * The vehicle named by the first argument when the caller may do what `need` needs with it (the
 * access model: src/core/auth/vehicle-access.ts); ids are case-insensitive. Undefined when the
 * caller does not see it (unknown, or another owner's and not shared): the handler answers it as
 * an unknown vehicle (nobody learns whether it exists). `Refused` when the caller sees it through
 * a share that does not allow this: the handler answers `refuse`.
 */
export function ownVehicle(call: ApiCall, need: 'view'): Promise<Vehicle | undefined>;
export function ownVehicle(call: ApiCall, need: Need): Promise<Vehicle | Refused | undefined>;
export function ownVehicle(call: ApiCall, need: Need): Promise<Vehicle | Refused | undefined> {
  return ownersVehicle(call.ctx, call.principal.ownerId, call.args[0] ?? '', need);
}

/** `ownVehicle` for a user and an id; also for the answer before fastify. */
export async function ownersVehicle(ctx: HttpContext, userId: number, id: string, need: Need): Promise<Vehicle | Refused | undefined> {
  const a = await vehicleAccess(ctx.store, userId, id);
  if (!a) return undefined;
  const why = refusal(a.access, need);
  return why === null ? a.vehicle : { refused: why };
}

/** Whether `ownVehicle`'s answer is a refusal. */
export const isRefusal = (v: Vehicle | Refused): v is Refused => 'refused' in v;

/** The 403 of a refusal: VTS_ERR_FORBIDDEN with its reason. */
export const refuse = (call: ApiCall, r: Refused) => sendError(call.reply, { code: 'VTS_ERR_FORBIDDEN', message: r.refused });

/**
 * The owner's vehicle when the store has it in memory (store.peekVehicle); undefined otherwise
 * (ask `ownersVehicle`, which also looks up the shares: a shared vehicle is never answered here).
 */
export function ownersVehicleAtOnce(ctx: HttpContext, ownerId: number, id: string): Vehicle | undefined {
  if (id === '') return undefined;
  const v = ctx.store.peekVehicle(id.toUpperCase());
  return v && v.ownerId === ownerId ? v : undefined;
}
