/**
 * The functions of the custom server API (docs/protocol/commands.md §8.2): `/api/<service>/<name>` or
 * `/api/call?fn.name=<service>/<name>`, `<service>` being `ctx.commandService` (default `ovms`).
 * Each authenticates with the vehicle id and its password itself (src/http/custom-api/vehicle-auth.ts).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpContext } from '../context.js';
import type { Params } from '../params.js';
import { customCommand } from './cmd.js';
import { customCsv } from './csv.js';

export type CustomApiHandler = (ctx: HttpContext, req: FastifyRequest, reply: FastifyReply, params: Params) => Promise<unknown>;

const FUNCTIONS: ReadonlyMap<string, CustomApiHandler> = new Map([
  ['cmd', customCommand],
  ['csv', customCsv],
]);

/** The handler of `/api/<fn>/<args>` (with these params) if it is a custom API call. */
export function customApiHandler(ctx: HttpContext, fn: string, args: readonly string[], params: Params): CustomApiHandler | undefined {
  let name: string | undefined;
  if (fn === ctx.commandService) {
    if (args.length === 1) name = args[0];
  } else if (fn === 'call' && args.length === 0) {
    const prefix = `${ctx.commandService}/`;
    const full = params['fn.name'] ?? '';
    if (full.startsWith(prefix)) name = full.slice(prefix.length);
  }
  return name === undefined ? undefined : FUNCTIONS.get(name);
}
