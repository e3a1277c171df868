/**
 * `GET|POST /api/<service>/csv` (also `/api/call?fn.name=<service>/csv`): historical records as a
 * CSV download for scripts that hold only the vehicle id and its server password (a vts addition
 * beside the custom command API, docs/protocol/commands.md §8.2). Parameters: `fn.vehicleid`,
 * `fn.carpass`, `fn.types` (comma list of record types, any case; required), `fn.since`
 * (`YYYY-MM-DD[ HH:MM:SS]` UTC, optional: only newer records). Errors: 400 missing or bad input,
 * 401 wrong vehicle or password, 413 too many records, each with a one-line text.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseTypeList } from '../../core/records/csv.js';
import { parseSince } from '../../core/time.js';
import { sendRecordsCsv } from '../records-csv.js';
import type { HttpContext } from '../context.js';
import type { Params } from '../params.js';
import { badRequest, sendText } from '../reply.js';
import { vehicleByPassword } from './vehicle-auth.js';
import { isThrottled, tooManyLogins } from '../auth.js';

export async function customCsv(ctx: HttpContext, req: FastifyRequest, reply: FastifyReply, params: Params): Promise<unknown> {
  const vehicleId = (params['fn.vehicleid'] ?? '').toUpperCase();
  const carpass = params['fn.carpass'] ?? '';
  const types = parseTypeList(params['fn.types'] ?? '');
  if (vehicleId === '' || carpass === '' || types.length === 0) return sendText(reply, 400, 'Missing fn.vehicleid, fn.carpass or fn.types');

  const vehicle = await vehicleByPassword(ctx, req, vehicleId, carpass);
  if (!vehicle) return sendText(reply, 401, 'Authentication failed');
  if (isThrottled(vehicle)) return tooManyLogins(reply, vehicle);

  const sinceText = params['fn.since'] ?? '';
  const since = sinceText === '' ? -1 : parseSince(sinceText);
  if (since === null) return badRequest(reply, 'Invalid fn.since: use YYYY-MM-DD or YYYY-MM-DD HH:MM:SS');
  return sendRecordsCsv(ctx, reply, vehicle.id, types, since, 'fn.since');
}
