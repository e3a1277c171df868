/**
 * The custom server API that users script against today (docs/protocol/commands.md §8.2, §8.3):
 * `GET|POST /api/<service>/cmd` (also `/api/call?fn.name=<service>/cmd`) with `fn.vehicleid`,
 * `fn.carpass` and `fn.cmd` in the query or a form body, authenticated by the vehicle id and its
 * server password; `fn.cmd` in the extended syntax (`#<code>,…/<n>`, `*<ussd>#`, `@<AT>`, else a
 * shell command). The answer is the output as `text/plain` (the records of a multi-record MP
 * result one per line); `fn.format=json` gives `{"command","output","result","vehicleid"}`.
 * Errors: 400 missing or bad input, 401 wrong vehicle or password, 409 not connected, 503 queue
 * full, 504 timeout, each with a one-line text.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpContext } from '../context.js';
import type { Params } from '../params.js';
import { commandFailure } from '../../errors.js';
import { sendError, sendJson, sendText, status } from '../reply.js';
import { vehicleByPassword } from './vehicle-auth.js';
import { isThrottled, tooManyLogins } from '../auth.js';

export async function customCommand(ctx: HttpContext, req: FastifyRequest, reply: FastifyReply, params: Params): Promise<unknown> {
  const vehicleId = (params['fn.vehicleid'] ?? '').toUpperCase();
  const carpass = params['fn.carpass'] ?? '';
  const cmd = params['fn.cmd'] ?? '';
  if (vehicleId === '' || carpass === '' || cmd === '') return sendText(reply, 400, 'Missing fn.vehicleid, fn.carpass or fn.cmd');

  const vehicle = await vehicleByPassword(ctx, req, vehicleId, carpass);
  if (!vehicle) return sendText(reply, 401, 'Authentication failed');
  if (isThrottled(vehicle)) return tooManyLogins(reply, vehicle);

  try {
    const r = await ctx.commands.execute({ vehicleId, kind: 'mp', text: extended(cmd), caller: `vehicle:${vehicleId}`, via: 'custom-api' });
    if (params['fn.format'] === 'json') {
      return sendJson(reply, 200, { command: cmd, output: r.output, result: r.result, vehicleid: vehicleId });
    }
    const text = r.output !== '' || r.result === 0 ? r.output : `Error: command result ${r.result}\n`;
    return status(reply, 200).header('content-type', 'text/plain; charset=utf-8').send(text);
  } catch (err) {
    return sendError(reply, commandFailure(err), params['fn.format'] === 'json' ? 'json' : 'text');
  }
}

/** A plain text becomes the extended syntax's shell form: `#7,<text>` is the same command. */
function extended(cmd: string): string {
  return cmd.startsWith('#') || (cmd.startsWith('*') && cmd.endsWith('#')) || cmd.startsWith('@') ? cmd : `#7,${cmd}`;
}
