/**
 * The hall of `/api`: the one dispatcher of every call under `/api` (docs/protocol/http-api-v2.md §2). Each group
 * of calls registers its routes in the table of its folder (`routes.ts`: method, path, handler with
 * its options, OpenAPI description); the hall finds a call by `<METHOD>:<its path's literal
 * segments after /api>` (`GET:status` for `/api/status/{vehicleId}`, `POST:account/verify`), the
 * longest that the request's path starts with. A handler's `args` are the segments after the
 * first (`/api/account/reset/confirm`: `['reset', 'confirm']`), whatever the call's key.
 * Unknown calls are 404 before any authentication, then authentication (401), then rights (403
 * `Insufficient rights`), then the handler (ownership: 403 `Forbidden`). The custom API
 * (src/http/custom-api/) authenticates by itself.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hasRight } from '../core/auth/rights.js';
import { sameSecret } from '../core/crypto/same-secret.js';
import { authenticate, isThrottled, tooManyLogins } from './auth.js';
import type { HttpContext } from './context.js';
import { apiSegments, MAX_PARAM, requestParams } from './params.js';
import { badRequest, insufficientRights, sendError, unauthorized, unrecognised, type ErrorStyle } from './reply.js';
import type { ApiGroup, ApiRoute } from './api-call.js';
import { API_V2 } from './api-v2/routes.js';
import { COMMAND_API } from './command/routes.js';
import { customApiHandler } from './custom-api/dispatch.js';
import { WEB_API } from './web-api/routes.js';

/** The groups of `/api` calls, each with its table (the custom API, found by name, is apart). */
export const API_GROUPS: readonly ApiGroup[] = [API_V2, COMMAND_API, WEB_API];

/** What the hall knows of one call (`<METHOD>:<fn>`): its route, group and error style. */
interface HallCall {
  route: ApiRoute;
  group: ApiGroup['name'];
  errors: ErrorStyle;
}

/** A row's call name: the literal segments of its path after `/api`, up to its first `{parameter}`. */
export function callName(path: string): string {
  const segments = path.split('/').slice(2);
  const literal = segments.findIndex((x) => x.startsWith('{'));
  return (literal < 0 ? segments : segments.slice(0, literal)).join('/');
}

/** The most literal segments of any call name (the longest prefix a request's path is tried with). */
let deepest = 1;

/** The calls of the groups' tables by `<METHOD>:<call name>`; the rows of one call must agree. */
function hallCalls(groups: readonly ApiGroup[]): Map<string, HallCall> {
  const calls = new Map<string, HallCall>();
  for (const group of groups) {
    for (const row of group.rows) {
      const name = callName(row.path);
      deepest = Math.max(deepest, name.split('/').length);
      const key = `${row.method}:${name}`;
      const call: HallCall = { route: row.route, group: group.name, errors: row.errors ?? group.errors };
      const had = calls.get(key);
      if (had && (had.route !== call.route || had.group !== call.group || had.errors !== call.errors)) {
        throw new Error(`/api: ${row.method} ${row.path} is another call than the earlier rows of ${key}`);
      }
      calls.set(key, had ?? call);
    }
  }
  return calls;
}

const CALLS = hallCalls(API_GROUPS);

/** The route of every call of the groups, by `<METHOD>:<call name>` (`GET:status`, `POST:account/verify`). */
export const API_ROUTES: ReadonlyMap<string, ApiRoute> = new Map([...CALLS].map(([key, call]) => [key, call.route]));

/** The call of a request's path segments after `/api`: the longest call name they start with. */
function callOf(method: string, segments: readonly string[]): HallCall | undefined {
  const m = method === 'HEAD' ? 'GET' : method;
  if (deepest === 1 || segments.length < 2) return CALLS.get(`${m}:${segments[0] ?? ''}`);
  for (let n = Math.min(deepest, segments.length); n >= 1; n--) {
    const call = CALLS.get(`${m}:${segments.slice(0, n).join('/')}`);
    if (call) return call;
  }
  return undefined;
}

/** The group of the `/api` call of these path segments after `/api`, if it is one of the groups' calls. */
export function apiCallGroup(method: string, segments: readonly string[]): ApiGroup['name'] | undefined {
  return callOf(method, segments)?.group;
}

/** How the `/api` call of `method` and `url` answers an error (src/http/reply.ts `sendError`). */
export function apiErrorStyle(method: string, url: string): ErrorStyle {
  return callOf(method, apiSegments(url) ?? [''])?.errors ?? 'text';
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'DELETE']);

/** A cookie of a web session must bring its CSRF token on every state-changing call. */
function csrfOk(req: FastifyRequest, session: { csrf?: string } | undefined): boolean {
  if (!session?.csrf || !STATE_CHANGING.has(req.method)) return true;
  const given = req.headers['x-csrf-token'];
  return typeof given === 'string' && sameSecret(given, session.csrf);
}

export async function dispatchApi(ctx: HttpContext, req: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const segments = apiSegments(req.url);
  if (segments === null) return badRequest(reply, 'Malformed URL encoding');
  const [fn = '', ...args] = segments;
  // HEAD is answered like GET (fastify drops the body); REF refused it with 501
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  const route = callOf(method, segments)?.route;
  const maybeCustom = !route && (method === 'GET' || method === 'POST') && (fn === ctx.commandService || fn === 'call');
  if (!route && !maybeCustom) return unrecognised(reply);
  const params = requestParams(req);
  if (params === null) return badRequest(reply, `Parameter too long (${MAX_PARAM} characters at most)`);
  if (!route) {
    // the custom API (cmd, csv) authenticates with the vehicle id and its password itself
    const custom = customApiHandler(ctx, fn, args, params);
    return custom ? custom(ctx, req, reply, params) : unrecognised(reply);
  }
  if (route.public) {
    return route.handler({ ctx, req, reply, principal: { ownerId: 0, ownerName: '', permit: '' }, args, params });
  }
  const principal = await authenticate(ctx, req, params);
  if (!principal) return route.jsonUnauthorized ? sendError(reply, { code: 'VTS_ERR_AUTH', message: 'not signed in' }) : unauthorized(reply);
  if (isThrottled(principal)) return tooManyLogins(reply, principal);
  if (!csrfOk(req, principal.session)) {
    return sendError(reply, { code: 'VTS_ERR_CSRF', message: 'missing or wrong X-CSRF-Token' });
  }
  if (route.rights && !hasRight(principal.permit, ...route.rights)) return insufficientRights(reply);
  return route.handler({ ctx, req, reply, principal, args, params });
}
