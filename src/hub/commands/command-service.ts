/**
 * The one command service of vts: runs a console or MP command on a vehicle for a caller and
 * returns the outcome, whatever asked: the HTTP command API, the custom `/api/<service>/cmd`, the
 * API v2 vehicle calls, `vts exec`, and an MP app's or batch client's own `C` (its answer records
 * are streamed back to it as the car sends them).
 *
 * - Commands of one vehicle run one at a time (the module's network task is single-threaded) in a
 *   bounded queue: a full queue is refused at once; a timeout frees the slot.
 * - The command goes over the first transport that reaches the vehicle (in `--command-link`
 *   order: the MP link and the MQTT link of this node, then another node of a cluster). A vehicle
 *   no transport reaches is refused at once. This is the one place that decides which link
 *   carries a command.
 * - Every execution is audited: who, vehicle, command with its secrets masked, result, duration.
 * - When the server shuts down (`shutdown()`), every command that is queued or running is
 *   answered at once with VTS_ERR_SHUTTING_DOWN, and new ones are refused with it.
 */
import type { Logger } from 'pino';
import { redactMp } from '../../core/commands/redact.js';
import { toMpCommand, type CommandKind, type MpCommand } from '../../core/commands/request.js';
import { decodeText, type CommandOutcome } from '../../core/commands/result.js';
import { commandFailure, VtsError } from '../../errors.js';
import type { CommandAuditEntry, Store } from '../../store/store.js';
import { backgroundCommands, RunWaiters } from './run-waiters.js';
import { commandOutcomeOf, NO_TELEMETRY, type Telemetry } from '../telemetry.js';

/** What runs on the vehicle. */
export interface CommandJob {
  /**
   * The MP command; null for a message that only the v2 link passes on as it is (a paranoid
   * command, whose function is encrypted, or a `C` without a function number).
   */
  command: MpCommand | null;
  /** The message as an MP client sent it, passed on unchanged over the v2 link (`C…`, paranoid `E…`). */
  wire?: { code: 'C' | 'E'; data: string };
  /**
   * Hears each answer record (`c…`, or `E…` for a paranoid command) as the vehicle sends it. It is
   * called once what the vehicle sent before is committed (from an `afterCommit` callback, or
   * where nothing waits), so the record may be passed on at once (`deliverNow`).
   */
  onRecord?(code: string, data: string): void;
}

export interface CommandTransport {
  readonly name: string;
  /** Whether the vehicle can be reached over this transport now (for this job). */
  reaches(vehicleId: string, job: CommandJob): boolean;
  /** Runs the job; rejects with VTS_ERR_COMMAND_TIMEOUT or VTS_ERR_NOT_CONNECTED. */
  run(vehicleId: string, job: CommandJob, timeoutMs: number): Promise<CommandOutcome>;
}

/** Who asks and how, for the audit. */
interface Caller {
  /** `user:<name>`, `vehicle:<id>`, `mp:<connection>`. */
  caller: string;
  /** Which door it came through: `api`, `custom-api`, `api-v2`, `mp`. */
  via: string;
}

export interface CommandRequest extends Caller {
  vehicleId: string;
  kind: CommandKind;
  text: string;
  /** Milliseconds; default and ceiling from the service options. */
  timeoutMs?: number;
}

/** A job to run as it is (an MP client's `C`, a request another node of a cluster passed on). */
export interface JobRequest extends Caller {
  vehicleId: string;
  kind: CommandKind;
  job: CommandJob;
  timeoutMs?: number;
  /** Passed on by another node: it runs on this node's links or nowhere (never passed on again). */
  relayed?: boolean;
  /**
   * Hears, synchronously (before `run` returns), that the command is refused at once: the vehicle
   * is not reachable, its queue is full or the server is shutting down. An MP client's refusal
   * must go out before what the client sent after its command is answered.
   */
  onRefused?(err: VtsError): void;
}

/**
 * How the service reaches a vehicle whose link is on another node of a cluster: the job is passed
 * on to that node's command service, which queues, times and audits it.
 */
export interface RemoteRoutes {
  /** The node that holds the vehicle's link of this transport's kind (`mp`, `mqtt`), or null. */
  nodeFor(vehicleId: string, transport: string, job: CommandJob): string | null;
  /**
   * Runs the job there; its records stream to `req.job.onRecord`. Rejects with the other node's
   * error (marked `auditedElsewhere`), or with VTS_ERR_NOT_CONNECTED when the node is out of reach
   * (marked `notDelivered` when the job surely never reached it: then it is routed again).
   */
  run(node: string, req: JobRequest): Promise<CommandResult>;
}

const auditedThere = new WeakSet<object>();

/** Marks an error that the node which ran the command has audited already. */
export function auditedElsewhere<E extends Error>(err: E): E {
  auditedThere.add(err);
  return err;
}

const undelivered = new WeakSet<object>();

/**
 * Marks an error of a relay that never reached the other node (it had died: nobody heard the
 * request): the command did not run, so it is routed again (the vehicle may be elsewhere now).
 */
export function notDelivered<E extends Error>(err: E): E {
  undelivered.add(err);
  return err;
}

/** Times a command whose node had gone is routed again. */
const REROUTES = 2;

type Route = { transport: CommandTransport; node?: undefined } | { node: string; transport?: undefined };

export interface CommandResult extends CommandOutcome {
  durationMs: number;
  transport: string;
}

export interface CommandServiceOptions {
  /** Commands that may wait per vehicle besides the running one. */
  maxQueue: number;
  defaultTimeoutMs: number;
  maxTimeoutMs: number;
}

export const DEFAULT_COMMAND_OPTIONS: CommandServiceOptions = { maxQueue: 10, defaultTimeoutMs: 30_000, maxTimeoutMs: 300_000 };

/** Info notifications (`PI…` on the v2 link) of a vehicle: the output of commands started with `run`. */
export type NotificationSource = (listener: (vehicleId: string, type: string, text: string) => void) => void;

interface VehicleQueue {
  tail: Promise<unknown>;
  /** Commands queued or running. */
  size: number;
}

/** A command that is queued or running, as shutdown() sees it. */
interface InFlight {
  /** Ends the caller's wait with this error (the transport's own wait is abandoned). */
  abort(err: Error): void;
  /** Settles once the caller has its answer and the execution is audited. */
  settled: Promise<unknown>;
}

export class CommandService {
  private readonly queues = new Map<string, VehicleQueue>();
  private readonly runWaiters: RunWaiters;
  private readonly inFlight = new Set<InFlight>();
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly transports: readonly CommandTransport[],
    private readonly log: Logger,
    readonly options: CommandServiceOptions = DEFAULT_COMMAND_OPTIONS,
    private readonly now: () => number = Date.now,
    notifications?: NotificationSource,
    private readonly remote?: RemoteRoutes,
    private readonly telemetry: Telemetry = NO_TELEMETRY,
  ) {
    this.runWaiters = new RunWaiters(now);
    notifications?.((vehicleId, type, text) => {
      if (type === 'I') this.runWaiters.output(vehicleId, decodeText(text));
    });
  }

  /** Commands queued or running for a vehicle. */
  pending(vehicleId: string): number {
    return this.queues.get(vehicleId)?.size ?? 0;
  }

  private transportFor(vehicleId: string, job: CommandJob): CommandTransport | undefined {
    return this.transports.find((t) => t.reaches(vehicleId, job));
  }

  /**
   * The first link, in `--command-link` order, that reaches the vehicle: on this node, or on the
   * node of a cluster that holds it.
   */
  private route(vehicleId: string, job: CommandJob, relayed: boolean): Route | null {
    for (const transport of this.transports) {
      if (transport.reaches(vehicleId, job)) return { transport };
      const node = relayed ? null : (this.remote?.nodeFor(vehicleId, transport.name, job) ?? null);
      if (node !== null) return { node };
    }
    return null;
  }

  /** Whether any link reaches the vehicle now (on any node). */
  reaches(vehicleId: string): boolean {
    return this.route(vehicleId, { command: { code: 7, params: '' } }, false) !== null;
  }

  /**
   * The server is shutting down: every command that is queued or running is answered at once
   * with VTS_ERR_SHUTTING_DOWN (a late answer of the vehicle is dropped), and every later one is
   * refused with it. Resolves once each of them has been answered and audited.
   */
  async shutdown(): Promise<void> {
    this.closed = true;
    const err = new VtsError('VTS_ERR_SHUTTING_DOWN', 'the command was not completed');
    const pending = [...this.inFlight];
    for (const c of pending) c.abort(err);
    await Promise.all(pending.map((c) => c.settled));
  }

  /** Runs a command given as text (`kind`: a shell line, JavaScript, or the extended MP syntax). */
  async execute(req: CommandRequest): Promise<CommandResult> {
    let command: MpCommand;
    try {
      command = toMpCommand(req.kind, req.text);
    } catch (err) {
      this.audit(req, req.vehicleId.toUpperCase(), '(invalid)', this.now(), auditResult(err));
      throw err;
    }
    return this.run({ vehicleId: req.vehicleId, kind: req.kind, job: { command }, timeoutMs: req.timeoutMs, caller: req.caller, via: req.via });
  }

  /** Why a job would be refused at once, or null. */
  private refusal(vehicleId: string, route: Route | null): VtsError | null {
    if (this.closed) return new VtsError('VTS_ERR_SHUTTING_DOWN', 'commands are not accepted now');
    if (!route) return new VtsError('VTS_ERR_NOT_CONNECTED', vehicleId);
    const size = this.queues.get(vehicleId)?.size ?? 0;
    if (route.transport && size > this.options.maxQueue) return new VtsError('VTS_ERR_QUEUE_FULL', `${size} commands for ${vehicleId}`);
    return null;
  }

  /** Runs a job: queued behind the vehicle's other commands, timed, audited. */
  run(req: JobRequest, reroutes = 0): Promise<CommandResult> {
    const vehicleId = req.vehicleId.toUpperCase();
    const started = this.now();
    const text = req.job.command ? redactMp(req.job.command) : '(paranoid)';
    const route = this.route(vehicleId, req.job, req.relayed === true);
    const refused = this.refusal(vehicleId, route);
    if (refused) {
      this.audit(req, vehicleId, text, started, auditResult(refused));
      req.onRefused?.(refused);
      return Promise.reject(refused);
    }
    if (route?.node !== undefined) {
      return this.relay(route.node, req, vehicleId, text, started, reroutes < REROUTES).catch((err: unknown) => {
        if (!(err instanceof Error && undelivered.has(err)) || reroutes >= REROUTES) throw err;
        return this.run(req, reroutes + 1);
      });
    }
    return this.queued(req, vehicleId, text, started);
  }

  /** The vehicle is on another node: its command service runs (and audits) the job. */
  private async relay(node: string, req: JobRequest, vehicleId: string, text: string, started: number, mayReroute: boolean): Promise<CommandResult> {
    let settle!: () => void;
    const flight: InFlight = { abort: () => undefined, settled: new Promise<void>((r) => (settle = r)) };
    const aborted = new Promise<never>((_resolve, reject) => (flight.abort = reject));
    this.inFlight.add(flight);
    try {
      return await Promise.race([this.remote!.run(node, { ...req, vehicleId, relayed: true }), aborted]);
    } catch (err) {
      // audited where it ran, or (not delivered) once its new route ends
      const rerouted = mayReroute && err instanceof Error && undelivered.has(err);
      if (!(err instanceof Error && auditedThere.has(err)) && !rerouted) this.audit(req, vehicleId, text, started, auditResult(err));
      throw err;
    } finally {
      this.inFlight.delete(flight);
      settle();
    }
  }

  private async queued(req: JobRequest, vehicleId: string, text: string, started: number): Promise<CommandResult> {
    /** The link the command went out on, once it has (for the metrics). */
    const sent = { link: 'none' };
    try {
      const timeoutMs = Math.min(this.options.maxTimeoutMs, Math.max(1, req.timeoutMs ?? this.options.defaultTimeoutMs));
      const waiting = this.queues.get(vehicleId);
      const queue = waiting ?? { tail: Promise.resolve(), size: 0 };
      queue.size++;
      this.queues.set(vehicleId, queue);
      // an idle vehicle gets the command at once (in the order of the caller's other messages)
      const run = waiting ? queue.tail.then(() => this.start(vehicleId, req.job, timeoutMs, sent)) : this.start(vehicleId, req.job, timeoutMs, sent);
      queue.tail = run.catch(() => undefined);
      // shutdown() ends the wait at once; the transport's own wait is left to run out
      let settle!: () => void;
      const flight: InFlight = { abort: () => undefined, settled: new Promise<void>((r) => (settle = r)) };
      const aborted = new Promise<never>((_resolve, reject) => (flight.abort = reject));
      this.inFlight.add(flight);
      try {
        const outcome = await Promise.race([run, aborted]);
        const result = { ...outcome, durationMs: this.now() - started };
        this.audit(req, vehicleId, text, started, String(outcome.result), sent.link);
        return result;
      } finally {
        // a failure is audited by the catch below, in the same turn (before shutdown() goes on)
        this.inFlight.delete(flight);
        settle();
        if (--queue.size === 0 && this.queues.get(vehicleId) === queue) this.queues.delete(vehicleId);
      }
    } catch (err) {
      this.audit(req, vehicleId, text, started, auditResult(err), sent.link);
      throw err;
    }
  }

  /** The command's turn has come: send it over the transport that reaches the vehicle now. */
  private async start(vehicleId: string, job: CommandJob, timeoutMs: number, sent: { link: string }): Promise<Omit<CommandResult, 'durationMs'>> {
    if (this.closed) throw new VtsError('VTS_ERR_SHUTTING_DOWN', 'the command was not started');
    // the vehicle may have gone while this command waited
    const transport = this.transportFor(vehicleId, job);
    if (!transport) throw new VtsError('VTS_ERR_NOT_CONNECTED', vehicleId);
    const deadline = this.now() + timeoutMs;
    sent.link = transport.name;
    // registered before the command is sent: the outputs may come in the same packet as the answer
    const background = job.command && !job.wire ? backgroundCommands(job.command) : 0;
    const run = background > 0 ? this.runWaiters.expect(vehicleId, background) : null;
    let outcome: CommandOutcome;
    try {
      outcome = await transport.run(vehicleId, job, timeoutMs);
    } catch (err) {
      run?.cancel();
      throw err;
    }
    const outputs = run ? (outcome.result === 0 ? await run.wait(deadline) : (run.cancel(), [])) : [];
    const output = outputs.reduce((out, t) => out + (out === '' || out.endsWith('\n') ? '' : '\n') + t, outcome.output);
    return { ...outcome, output, transport: transport.name };
  }

  /** Records the command's end (in the store, the log and the metrics); `link`: what carried it, `none` when nothing did. */
  private audit(req: Caller & { kind: string }, vehicleId: string, command: string, started: number, result: string, link = 'none'): void {
    const entry: CommandAuditEntry = {
      vehicleId,
      time: Math.floor(started / 1000),
      caller: req.caller,
      via: req.via,
      kind: req.kind,
      command,
      result,
      durationMs: this.now() - started,
    };
    this.store.addCommandAudit(entry).catch((err: unknown) => this.log.error({ err }, 'command audit failed'));
    this.log.info({ vehicle: vehicleId, caller: req.caller, via: req.via, command, result, ms: entry.durationMs }, 'command');
    this.telemetry.command(link, /^\d$/.test(result) ? commandOutcomeOf(Number(result)) : result, entry.durationMs / 1000);
  }
}

/** The audit's result of a failed command: the catalogue's label (src/errors.ts). */
const auditResult = (err: unknown): string => commandFailure(err).audit;
