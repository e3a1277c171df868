/**
 * The authenticated command API for the owner's own tools:
 * - `POST /api/command/<VEHICLEID>` with `{"command", "type": "shell|js|mp", "timeout"}` (JSON, a
 *   form or the query): 200 `{"output","result"}`; `?async=1`: 202 `{"job","status"}`;
 * - `GET /api/command/<VEHICLEID>/<job>`: the job's state and, once ended, its outcome;
 * - `GET /api/command/<VEHICLEID>`: the vehicle's command audit, newest first (`?limit=`).
 * Needs the right `command`, `admin` or `*`. Errors answer JSON `{"error","message"}`: 400 bad
 * input, 409 not connected, 503 queue full, 504 timeout.
 */
import type { CommandKind } from '../../core/commands/request.js';
import { formatUtc } from '../../core/time.js';
import { forbidden, sendError, sendJson } from '../reply.js';
import { isRefusal, ownVehicle, refuse, type ApiCall, type ApiRoute } from '../api-call.js';
import { commandFailure } from '../../errors.js';
import type { Job } from '../../hub/commands/command-jobs.js';

const RIGHTS = ['command', 'admin'] as const;
const KINDS: readonly CommandKind[] = ['shell', 'js', 'mp'];

const badInput = (call: ApiCall, message: string) => sendError(call.reply, { code: 'VTS_ERR_INVALID_INPUT', message });

interface Input {
  command: string;
  kind: CommandKind;
  timeoutMs?: number;
}

/** The request's fields from a JSON body, a form body or the query string. */
function readInput(call: ApiCall): Input | string {
  const body = call.req.body;
  const json = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const pick = (k: string): unknown => json[k] ?? call.params[k];
  const command = pick('command');
  if (typeof command !== 'string' || command.trim() === '') return 'command: a non-empty string is required';
  const kind = pick('type') ?? 'shell';
  if (typeof kind !== 'string' || !(KINDS as readonly string[]).includes(kind)) return 'type: shell, js or mp';
  const timeout = pick('timeout');
  if (timeout === undefined || timeout === '') return { command, kind: kind as CommandKind };
  const seconds = typeof timeout === 'number' ? timeout : typeof timeout === 'string' && /^\d+(\.\d+)?$/.test(timeout) ? Number(timeout) : NaN;
  if (!(seconds > 0)) return 'timeout: a positive number of seconds';
  return { command, kind: kind as CommandKind, timeoutMs: Math.round(seconds * 1000) };
}

function jobBody(job: Job): Record<string, string | number | null> {
  const body: Record<string, string | number | null> = { job: job.id, status: job.status };
  if (job.result) Object.assign(body, { output: job.result.output, result: job.result.result });
  if (job.failure) Object.assign(body, { error: job.failure.code, message: job.failure.message });
  return body;
}

export const runCommand: ApiRoute = {
  rights: RIGHTS,
  async handler(call) {
    const vehicle = await ownVehicle(call, 'control');
    if (!vehicle) return forbidden(call.reply);
    if (isRefusal(vehicle)) return refuse(call, vehicle);
    const input = readInput(call);
    if (typeof input === 'string') return badInput(call, input);
    const { ctx, principal } = call;
    const execute = () =>
      ctx.commands.execute({
        vehicleId: vehicle.id,
        kind: input.kind,
        text: input.command,
        timeoutMs: input.timeoutMs,
        caller: `user:${principal.ownerName}`,
        via: 'api',
      });
    if (call.params.async === '1' || call.params.async === 'true') {
      const job = await ctx.jobs.start(vehicle.id, principal.ownerId, execute);
      if (!job) return sendError(call.reply, { code: 'VTS_ERR_QUEUE_FULL', message: 'too many jobs' });
      return sendJson(call.reply, 202, jobBody(job));
    }
    try {
      const r = await execute();
      return sendJson(call.reply, 200, { output: r.output, result: r.result });
    } catch (err) {
      return sendError(call.reply, commandFailure(err));
    }
  },
};

export const commandInfo: ApiRoute = {
  rights: RIGHTS,
  async handler(call) {
    const vehicle = await ownVehicle(call, 'control');
    if (!vehicle) return forbidden(call.reply);
    if (isRefusal(vehicle)) return refuse(call, vehicle);
    const jobId = call.args[1];
    if (jobId) {
      const job = await call.ctx.jobs.get(jobId);
      if (!job || job.vehicleId !== vehicle.id || job.ownerId !== call.principal.ownerId) {
        return sendError(call.reply, { code: 'VTS_ERR_UNKNOWN_JOB', message: 'no such job' });
      }
      return sendJson(call.reply, 200, jobBody(job));
    }
    const limit = Math.min(1000, Math.max(1, Number(call.params.limit) || 100));
    const entries = await call.ctx.store.listCommandAudit(vehicle.id, limit);
    return sendJson(
      call.reply,
      200,
      entries.map((e) => ({
        caller: e.caller,
        command: e.command,
        duration_ms: e.durationMs,
        kind: e.kind,
        result: e.result,
        time: formatUtc(e.time),
        via: e.via,
      })),
    );
  },
};
