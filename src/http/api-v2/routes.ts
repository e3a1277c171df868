/**
 * The `/api` dispatcher (http-api-v2.md §2): the call is `<METHOD>:<first segment after /api>`;
 * unknown calls are 404 before any authentication, then authentication (401), then rights (403
 * `Insufficient rights`), then the handler (ownership: 403 `Forbidden`).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hasRight } from '../../core/auth/rights.js';
import { authenticate } from '../auth.js';
import type { HttpContext } from '../context.js';
import { apiSegments, MAX_PARAM, requestParams } from '../params.js';
import { badRequest, insufficientRights, unauthorized, unrecognised } from '../reply.js';
import type { ApiRoute } from './call.js';
import { historical } from './historical.js';
import { customApiHandler } from '../custom-api/dispatch.js';
import { commandInfo, runCommand } from '../command/json-api.js';
import * as actions from '../command/vehicle-actions.js';
import { charge, location, protocol, status, tpms } from './records.js';
import { login, logout } from './session.js';
import { createToken, deleteToken, listTokens } from './tokens.js';
import { connectVehicle, disconnectVehicle, listVehicles } from './vehicles.js';

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
]);

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
  const principal = await authenticate(ctx, req, params);
  if (!principal) return unauthorized(reply);
  if (route.rights && !hasRight(principal.permit, ...route.rights)) return insufficientRights(reply);
  return route.handler({ ctx, req, reply, principal, args, params });
}
