/** One `/api` call on its way through the dispatcher. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpContext } from './context.js';
import type { Principal } from './auth.js';
import type { Params } from './params.js';
import type { Vehicle } from '../store/store.js';

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
  /** Any of these rights is needed (http-api-v2.md §3.3); none = any authenticated caller. */
  rights?: readonly string[];
  /** The handler authenticates by itself (the web sign-in): `principal` is a placeholder. */
  public?: boolean;
  /** A request without a valid login is refused with JSON 401 `VTS_ERR_AUTH`, not REF's text line. */
  jsonUnauthorized?: boolean;
  handler(call: ApiCall): Promise<unknown> | unknown;
}

/**
 * The vehicle named by the first argument if it belongs to the caller (ids are case-insensitive);
 * undefined otherwise: the handler answers 403 `Forbidden` (nobody learns whether it exists).
 */
export async function ownVehicle(call: ApiCall): Promise<Vehicle | undefined> {
  const id = (call.args[0] ?? '').toUpperCase();
  if (id === '') return undefined;
  const v = await call.ctx.store.getVehicle(id);
  return v && v.ownerId === call.principal.ownerId ? v : undefined;
}
