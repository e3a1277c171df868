/**
 * The one command service of vts: runs a console or MP command on a vehicle for a
 * caller and returns the outcome, whatever adapter asked (the HTTP command API, the custom
 * `/api/<service>/cmd`, later MQTT and the CLI).
 *
 * - Commands of one vehicle run one at a time (the module's network task is single-threaded) in a
 *   bounded queue: a full queue is refused at once; a timeout frees the slot.
 * - The command goes over the first transport that reaches the vehicle (the MP link now; the MQTT
 *   link plugs in as another transport). A vehicle no transport reaches is refused at once.
 * - Every execution is audited: who, vehicle, command with its secrets masked, result, duration.
 * - When the server shuts down (`shutdown()`), every command that is queued or running is
 *   answered at once with VTS_ERR_SHUTTING_DOWN, and new ones are refused with it.
 */
import type { Logger } from 'pino';
import { redactMp } from '../core/commands/redact.js';
import { toMpCommand, type CommandKind, type MpCommand } from '../core/commands/request.js';
import { decodeText, type CommandOutcome } from '../core/commands/result.js';
import { isVtsError, VtsError } from '../errors.js';
import type { CommandAuditEntry, Store } from '../store/store.js';

export interface CommandTransport {
  readonly name: string;
  /** Whether the vehicle can be reached over this transport now. */
  reaches(vehicleId: string): boolean;
  /** Runs the command; rejects with VTS_ERR_COMMAND_TIMEOUT or VTS_ERR_NOT_CONNECTED. */
  run(vehicleId: string, command: MpCommand, timeoutMs: number): Promise<CommandOutcome>;
}

export interface CommandRequest {
  vehicleId: string;
  kind: CommandKind;
  text: string;
  /** Milliseconds; default and ceiling from the service options. */
  timeoutMs?: number;
  /** Who asks, for the audit: `user:<name>`, `vehicle:<id>`. */
  caller: string;
  /** Which door it came through, for the audit: `api`, `custom-api`, `api-v2`. */
  via: string;
}

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

interface RunWaiter {
  /** Background commands whose output is still awaited. */
  remaining: number;
  outputs: string[];
  done: () => void;
}

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
  private readonly runWaiters = new Map<string, RunWaiter[]>();
  private readonly inFlight = new Set<InFlight>();
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly transports: readonly CommandTransport[],
    private readonly log: Logger,
    readonly options: CommandServiceOptions = DEFAULT_COMMAND_OPTIONS,
    private readonly now: () => number = Date.now,
    notifications?: NotificationSource,
  ) {
    notifications?.((vehicleId, type, text) => {
      if (type !== 'I') return;
      // background outputs come in the order the `run`s started (the v2 link does not say which)
      const waiter = this.runWaiters.get(vehicleId)?.[0];
      if (!waiter) return;
      waiter.outputs.push(decodeText(text));
      if (--waiter.remaining === 0) waiter.done();
    });
  }

  /**
   * For `run <cmd> [; <cmd>…]` (command-execution.md §7): registers, before the command is sent,
   * for the info notifications that carry each background command's output (they may arrive in
   * the same packet as the immediate answer). `wait` resolves with the outputs that came by the
   * deadline; `cancel` gives up.
   */
  private expectRun(vehicleId: string, cmd: MpCommand): { wait(deadline: number): Promise<string[]>; cancel(): void } | null {
    const count = backgroundCommands(cmd);
    if (count === 0) return null;
    const waiter: RunWaiter = { remaining: count, outputs: [], done: () => undefined };
    let finished = false;
    const arrived = new Promise<void>((resolve) => {
      waiter.done = () => {
        finished = true;
        resolve();
      };
    });
    const list = this.runWaiters.get(vehicleId) ?? [];
    list.push(waiter);
    this.runWaiters.set(vehicleId, list);
    const cancel = (): void => {
      const i = list.indexOf(waiter);
      if (i >= 0) list.splice(i, 1);
      if (list.length === 0 && this.runWaiters.get(vehicleId) === list) this.runWaiters.delete(vehicleId);
    };
    return {
      cancel,
      wait: async (deadline) => {
        if (!finished) {
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([arrived, new Promise<void>((r) => (timer = setTimeout(r, Math.max(0, deadline - this.now()))))]);
          clearTimeout(timer);
        }
        cancel();
        return waiter.outputs;
      },
    };
  }

  /** Commands queued or running for a vehicle. */
  pending(vehicleId: string): number {
    return this.queues.get(vehicleId)?.size ?? 0;
  }

  private transportFor(vehicleId: string): CommandTransport | undefined {
    return this.transports.find((t) => t.reaches(vehicleId));
  }

  /** Whether any transport reaches the vehicle now. */
  reaches(vehicleId: string): boolean {
    return this.transportFor(vehicleId) !== undefined;
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

  async execute(req: CommandRequest): Promise<CommandResult> {
    const vehicleId = req.vehicleId.toUpperCase();
    const started = this.now();
    let command: MpCommand | undefined;
    const audit = (result: string): void => {
      const entry: CommandAuditEntry = {
        vehicleId,
        time: Math.floor(started / 1000),
        caller: req.caller,
        via: req.via,
        kind: req.kind,
        command: command ? redactMp(command) : '(invalid)',
        result,
        durationMs: this.now() - started,
      };
      this.store.addCommandAudit(entry).catch((err: unknown) => this.log.error({ err }, 'command audit failed'));
      this.log.info({ vehicle: vehicleId, caller: req.caller, via: req.via, command: entry.command, result, ms: entry.durationMs }, 'command');
    };
    try {
      command = toMpCommand(req.kind, req.text);
      if (this.closed) throw new VtsError('VTS_ERR_SHUTTING_DOWN', 'commands are not accepted now');
      const timeoutMs = Math.min(this.options.maxTimeoutMs, Math.max(1, req.timeoutMs ?? this.options.defaultTimeoutMs));
      if (!this.reaches(vehicleId)) throw new VtsError('VTS_ERR_NOT_CONNECTED', vehicleId);
      const queue = this.queues.get(vehicleId) ?? { tail: Promise.resolve(), size: 0 };
      if (queue.size > this.options.maxQueue) throw new VtsError('VTS_ERR_QUEUE_FULL', `${queue.size} commands for ${vehicleId}`);
      queue.size++;
      this.queues.set(vehicleId, queue);
      const cmd = command;
      const run = queue.tail.then(async () => {
        if (this.closed) throw new VtsError('VTS_ERR_SHUTTING_DOWN', 'the command was not started');
        // the vehicle may have gone while this command waited
        const transport = this.transportFor(vehicleId);
        if (!transport) throw new VtsError('VTS_ERR_NOT_CONNECTED', vehicleId);
        const deadline = this.now() + timeoutMs;
        const run = this.expectRun(vehicleId, cmd);
        let outcome: CommandOutcome;
        try {
          outcome = await transport.run(vehicleId, cmd, timeoutMs);
        } catch (err) {
          run?.cancel();
          throw err;
        }
        const background = run ? (outcome.result === 0 ? await run.wait(deadline) : (run.cancel(), [])) : [];
        const output = background.reduce((out, text) => out + (out === '' || out.endsWith('\n') ? '' : '\n') + text, outcome.output);
        return { ...outcome, output, transport: transport.name };
      });
      queue.tail = run.catch(() => undefined);
      // shutdown() ends the wait at once; the transport's own wait is left to run out
      let settle!: () => void;
      const flight: InFlight = { abort: () => undefined, settled: new Promise<void>((r) => (settle = r)) };
      const aborted = new Promise<never>((_resolve, reject) => (flight.abort = reject));
      this.inFlight.add(flight);
      try {
        const outcome = await Promise.race([run, aborted]);
        const result = { ...outcome, durationMs: this.now() - started };
        audit(String(outcome.result));
        return result;
      } finally {
        // a failure is audited by the catch below, in the same turn (before shutdown() goes on)
        this.inFlight.delete(flight);
        settle();
        if (--queue.size === 0 && this.queues.get(vehicleId) === queue) this.queues.delete(vehicleId);
      }
    } catch (err) {
      audit(auditResult(err));
      throw err;
    }
  }
}

/** How many background commands a shell `run …` starts (0 for anything else). */
function backgroundCommands(cmd: MpCommand): number {
  if (cmd.code !== 7) return 0;
  const m = /^\s*run(?:\s+-\S+)*\s+(.+)$/.exec(cmd.params);
  if (!m) return 0;
  // commands are separated by a `;` token of their own (`run stat ; location`)
  return m[1]!
    .split(/\s+;(?=\s|$)/)
    .filter((c) => c.trim() !== '').length;
}

function auditResult(err: unknown): string {
  if (isVtsError(err, 'VTS_ERR_COMMAND_TIMEOUT')) return 'timeout';
  if (isVtsError(err, 'VTS_ERR_NOT_CONNECTED')) return 'not-connected';
  if (isVtsError(err, 'VTS_ERR_QUEUE_FULL')) return 'queue-full';
  if (isVtsError(err, 'VTS_ERR_COMMAND_SYNTAX')) return 'invalid';
  if (isVtsError(err, 'VTS_ERR_SHUTTING_DOWN')) return 'shutting-down';
  return 'error';
}
