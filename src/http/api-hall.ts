/**
 * The `/api` dispatcher (http-api-v2.md §2): the call is `<METHOD>:<first segment after /api>`;
 * unknown calls are 404 before any authentication, then authentication (401), then rights (403
 * `Insufficient rights`), then the handler (ownership: 403 `Forbidden`).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hasRight } from '../core/auth/rights.js';
import { sameSecret } from '../core/crypto/same-secret.js';
import { authenticate, isThrottled, tooManyLogins } from './auth.js';
import type { HttpContext } from './context.js';
import { apiSegments, MAX_PARAM, requestParams } from './params.js';
import { badRequest, insufficientRights, sendJson, unauthorized, unrecognised, type ErrorStyle } from './reply.js';
import type { ApiRoute } from './api-call.js';
import { historical } from './api-v2/historical.js';
import { customApiHandler } from './custom-api/dispatch.js';
import { commandInfo, runCommand } from './command/json-api.js';
import * as actions from './command/vehicle-actions.js';
import { charge, location, protocol, status, tpms } from './api-v2/records.js';
import { login, logout } from './api-v2/session.js';
import { createToken, deleteToken, listTokens } from './api-v2/tokens.js';
import { connectVehicle, disconnectVehicle, listVehicles } from './api-v2/vehicles.js';
import { history } from './web-api/history.js';
import { live } from './web-api/live.js';
import { overview } from './web-api/overview.js';
import { changePassword } from './web-api/password.js';
import { addTarget, notifications, readPush, removePush } from './web-api/push.js';
import { signIn, signOut, whoAmI } from './web-api/session.js';

export const API_ROUTES: ReadonlyMap<string, ApiRoute> = new Map<string, ApiRoute>([
  ['GET:cookie', login],
  ['DELETE:cookie', logout],
  ['GET:token', listTokens],
  ['POST:token', createToken],
  ['DELETE:token', deleteToken],
  ['GET:vehicles', listVehicles],
  ['GET:vehicle', connectVehicle],
  ['DELETE:vehicle', disconnectVehicle],
  ['GET:protocol', protocol],
  ['GET:status', status],
  ['GET:tpms', tpms],
  ['GET:location', location],
  ['GET:charge', charge],
  ['GET:historical', historical],
  ['POST:command', runCommand],
  ['GET:command', commandInfo],
  // the reference's "Not Yet Implemented" group, on the command service (src/http/command/)
  ['PUT:charge', actions.chargeStart],
  ['DELETE:charge', actions.chargeStop],
  ['GET:lock', actions.lockState],
  ['PUT:lock', actions.lock],
  ['DELETE:lock', actions.unlock],
  ['GET:valet', actions.lockState],
  ['PUT:valet', actions.valetOn],
  ['DELETE:valet', actions.valetOff],
  ['GET:features', actions.listFeatures],
  ['PUT:features', actions.setFeature],
  ['GET:parameters', actions.listParameters],
  ['PUT:parameters', actions.setParameter],
  ['PUT:reset', actions.reset],
  ['PUT:homelink', actions.homelink],
  // vts's own calls for the web dashboard and other tools (docs/web-api.md)
  ['POST:session', signIn],
  ['GET:session', whoAmI],
  ['DELETE:session', signOut],
  ['POST:password', changePassword],
  ['GET:overview', overview],
  ['GET:live', live],
  ['GET:history', history],
  ['GET:push', readPush],
  ['POST:push', addTarget],
  ['DELETE:push', removePush],
  ['GET:notifications', notifications],
]);

/** The command API and the reference's former "Not Yet Implemented" group (src/http/command/). */
export const COMMAND_API_ROUTES: ReadonlySet<ApiRoute> = new Set<ApiRoute>([
  runCommand,
  commandInfo,
  ...[actions.chargeStart, actions.chargeStop, actions.lockState, actions.lock, actions.unlock, actions.valetOn, actions.valetOff],
  ...[actions.listFeatures, actions.setFeature, actions.listParameters, actions.setParameter, actions.reset, actions.homelink],
]);

/** vts's web API (docs/web-api.md). */
export const WEB_API_ROUTES: ReadonlySet<ApiRoute> = new Set<ApiRoute>([
  ...[signIn, whoAmI, signOut, changePassword, overview, live, history],
  ...[readPush, addTarget, removePush, notifications],
]);

/**
 * The calls that answer their errors as JSON `{"error","message"}`: the command API and the web
 * API, but for the lock and valet state (REF's text). Every other call answers REF's one line of text.
 */
const JSON_ERROR_ROUTES: ReadonlySet<ApiRoute> = new Set<ApiRoute>([...[...COMMAND_API_ROUTES].filter((r) => r !== actions.lockState), ...WEB_API_ROUTES]);

/** How the `/api` call of `method` and `url` answers an error (src/http/reply.ts `sendError`). */
export function apiErrorStyle(method: string, url: string): ErrorStyle {
  const fn = apiSegments(url)?.[0] ?? '';
  const route = API_ROUTES.get(`${method === 'HEAD' ? 'GET' : method}:${fn}`);
  return route && JSON_ERROR_ROUTES.has(route) ? 'json' : 'text';
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
  const route = API_ROUTES.get(`${method}:${fn}`);
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
  if (!principal) return route.jsonUnauthorized ? sendJson(reply, 401, { error: 'VTS_ERR_AUTH', message: 'not signed in' }) : unauthorized(reply);
  if (isThrottled(principal)) return tooManyLogins(reply, principal);
  if (!csrfOk(req, principal.session)) {
    return sendJson(reply, 403, { error: 'VTS_ERR_CSRF', message: 'missing or wrong X-CSRF-Token' });
  }
  if (route.rights && !hasRight(principal.permit, ...route.rights)) return insufficientRights(reply);
  return route.handler({ ctx, req, reply, principal, args, params });
}
