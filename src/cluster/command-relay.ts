/**
 * Commands between nodes: a job of a caller on one node, run by the command service of the node
 * that holds the vehicle's link (src/hub/commands/command-service.ts), its answer records streamed back as
 * they come, then its end (`done`) or its failure (`fail`, audited there).
 */
import { isErrorCode, isVtsError, VtsError } from '../errors.js';
import type { ClusterEvents } from '../hub/cluster/cluster.js';
import { auditedElsewhere, type JobRequest } from '../hub/commands/command-service.js';
import type { WireJob, WireMessage } from './wire.js';

/** The job as it travels (the record sink stays with the caller). */
export function jobToWire(req: JobRequest): WireJob {
  return {
    vehicleId: req.vehicleId,
    kind: req.kind,
    caller: req.caller,
    via: req.via,
    timeoutMs: req.timeoutMs,
    command: req.job.command,
    ...(req.job.wire ? { wire: req.job.wire } : {}),
  };
}

/** How long the caller's node waits at most: the other node answers within the command's time and its queue. */
export function relayGuardMs(req: JobRequest): number {
  return (req.timeoutMs ?? 300_000) * 12 + 10_000;
}

/** Runs another node's job here; `reply` sends its records and its end back. */
export function runRelayed(events: ClusterEvents, id: string, job: WireJob, reply: (m: WireMessage) => void): void {
  const req: JobRequest = {
    vehicleId: job.vehicleId,
    kind: job.kind,
    caller: job.caller,
    via: job.via,
    timeoutMs: job.timeoutMs,
    job: { command: job.command, wire: job.wire, onRecord: (c, d) => reply({ t: 'rec', id, c, d }) },
  };
  events.runCommand(req).then(
    (r) => reply({ t: 'done', id, result: r.result, output: r.output, ms: r.durationMs, transport: r.transport }),
    (err: unknown) =>
      reply(isVtsError(err) ? { t: 'fail', id, code: err.code, detail: err.detail ?? '' } : { t: 'fail', id, code: 'VTS_ERR_NOT_CONNECTED', detail: "the command failed on the vehicle's node" }),
  );
}

/** The error of a `fail` answer, marked as audited by the node that ran the command. */
export function relayFailure(code: string, detail: string): VtsError {
  const known = isErrorCode(code) ? code : 'VTS_ERR_NOT_CONNECTED';
  return auditedElsewhere(new VtsError(known, detail || undefined));
}
