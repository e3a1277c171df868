/**
 * The custom server API that users script against today (command-execution.md §8.2, §8.3):
 * `GET|POST /api/<service>/cmd` (also `/api/call?fn.name=<service>/cmd`) with `fn.vehicleid`,
 * `fn.carpass` and `fn.cmd` in the query or a form body, authenticated by the vehicle id and its
 * server password; `fn.cmd` in the extended syntax (`#<code>,…/<n>`, `*<ussd>#`, `@<AT>`, else a
 * shell command). The answer is the output as `text/plain` (the records of a multi-record MP
 * result one per line); `fn.format=json` gives `{"command","output","result","vehicleid"}`.
 * Errors: 400 missing or bad input, 401 wrong vehicle or password, 409 not connected, 503 queue
 * full, 504 timeout, each with a one-line text.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpContext } from '../context.js';
import { clientAddress, type Params } from '../params.js';
import { commandFailure } from '../command/errors.js';
import { sendJson, sendText, status } from '../reply.js';

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

function samePassword(given: string, stored: string): boolean {
  return timingSafeEqual(digest(given), digest(stored));
}

/** Whether `/api/<fn>/<args>` (with these params) is the custom command API. */
export function isCustomApiCall(ctx: HttpContext, fn: string, args: readonly string[], params: Params): boolean {
  if (fn === ctx.commandService) return args[0] === 'cmd' && args.length === 1;
  return fn === 'call' && args.length === 0 && params['fn.name'] === `${ctx.commandService}/cmd`;
}

export async function customCommand(ctx: HttpContext, req: FastifyRequest, reply: FastifyReply, params: Params): Promise<unknown> {
  const vehicleId = (params['fn.vehicleid'] ?? '').toUpperCase();
  const carpass = params['fn.carpass'] ?? '';
  const cmd = params['fn.cmd'] ?? '';
  if (vehicleId === '' || carpass === '' || cmd === '') return sendText(reply, 400, 'Missing fn.vehicleid, fn.carpass or fn.cmd');

  const address = clientAddress(req);
  const now = ctx.hub.seconds();
  if (ctx.addressThrottle.check(address, now).action === 'refuse') return sendText(reply, 401, 'Authentication failed');
  const vehicle = await ctx.store.getVehicle(vehicleId);
  // compare even for an unknown vehicle: the answer takes as long either way
  const ok = samePassword(carpass, vehicle?.carPassword ?? '\u0000no vehicle') && vehicle !== undefined;
  if (!ok) {
    ctx.addressThrottle.recordFailure(address, now);
    ctx.log.info({ address, vehicle: vehicleId }, 'custom API authentication failed');
    return sendText(reply, 401, 'Authentication failed');
  }

  try {
    const r = await ctx.commands.execute({ vehicleId, kind: 'mp', text: extended(cmd), caller: `vehicle:${vehicleId}`, via: 'custom-api' });
    if (params['fn.format'] === 'json') {
      return sendJson(reply, 200, { command: cmd, output: r.output, result: r.result, vehicleid: vehicleId });
    }
    const text = r.output !== '' || r.result === 0 ? r.output : `Error: command result ${r.result}\n`;
    return status(reply, 200).header('content-type', 'text/plain; charset=utf-8').send(text);
  } catch (err) {
    const f = commandFailure(err);
    if (params['fn.format'] === 'json') return sendJson(reply, f.status, { error: f.code, message: f.message });
    return sendText(reply, f.status, f.message);
  }
}

/** A plain text becomes the extended syntax's shell form: `#7,<text>` is the same command. */
function extended(cmd: string): string {
  return cmd.startsWith('#') || (cmd.startsWith('*') && cmd.endsWith('#')) || cmd.startsWith('@') ? cmd : `#7,${cmd}`;
}
