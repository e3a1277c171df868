/**
 * The module console: the command interpreter every link of the emulated module runs commands
 * through (MP command 7, MQTT commands, module HTTP /api/execute, SSH), in the secure mode of
 * remote channels. A payload is split into lines and tokens as microrl does (tokenizer.ts), each
 * line resolved in the command tree (command.ts) and run; the outputs are concatenated.
 *
 * Commands run as soon as they are given: the console does not queue payloads of different
 * callers (a link that must not overlap commands awaits each answer, as the firmware's network
 * task does). JavaScript runs in one engine per console (a worker thread, script-sandbox.ts),
 * one evaluation at a time. `run` and delayed events go on in the background until `dispose()`.
 * A vehicle whose `typeCode` is empty counts as "no vehicle module selected".
 */
import { Command, dispatch, Output, type DispatchResult } from './command.js';
import { registerMetricsCommands } from './commands-metrics.js';
import { registerModuleCommands } from './commands-module.js';
import { registerNetworkCommands } from './commands-network.js';
import { registerRunCommand } from './commands-run.js';
import { registerScriptCommands, scriptHost } from './commands-script.js';
import { registerSystemCommands } from './commands-system.js';
import { registerVehicleCommands } from './commands-vehicle.js';
import { DEFAULT_OPTIONS, type ConsoleEnv, type ModuleConsoleOptions } from './env.js';
import { MetricText } from './metric-text.js';
import { ScriptSandbox } from './script-sandbox.js';
import type { CommandRunner, ModuleServices } from './services.js';
import { splitLines, tokenize, TOKENIZE_ERROR } from './tokenizer.js';
import { TripTracker } from './trip.js';

export type { ModuleConsoleOptions } from './env.js';

export class ModuleConsole implements CommandRunner {
  /** The root of the command tree (vehicle-specific groups can be added to it). */
  readonly root = Command.root();
  private readonly options: Required<ModuleConsoleOptions>;
  private readonly sandbox: ScriptSandbox;
  private readonly trip: TripTracker;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly sleepers = new Set<() => void>();
  private readonly work = new Set<Promise<void>>();
  private isDisposed = false;

  constructor(
    private readonly services: ModuleServices,
    options: ModuleConsoleOptions = {},
  ) {
    this.options = { ...DEFAULT_OPTIONS, ...options };
    const vehicle = services.vehicle;
    const text = new MetricText(vehicle.metrics, (group) => services.config.get('vehicle', `units.${group}`) || undefined);
    this.trip = new TripTracker(vehicle.metrics, () => vehicle.now());
    const env = this.environment(text);
    this.sandbox = new ScriptSandbox(scriptHost(env), {
      timeoutMs: this.options.scriptTimeoutMs,
      outputLimit: this.options.scriptOutputLimit,
      memoryMb: this.options.scriptMemoryMb,
    });
    registerVehicleCommands(env, this.trip);
    registerMetricsCommands(env);
    registerModuleCommands(env);
    registerNetworkCommands(env);
    registerSystemCommands(env);
    registerScriptCommands(env);
    registerRunCommand(env);
  }

  /** Runs a payload (one or more LF-separated command lines); resolves with the whole output. */
  async execute(line: string): Promise<string> {
    const out = new Output();
    await this.runLines(line, out);
    return out.text();
  }

  /**
   * Runs JavaScript as `script eval` does, without shell tokenising (module HTTP `type=js`):
   * what the code printed, then an `ERROR: …` line if it failed.
   */
  async evalScript(code: string): Promise<string> {
    return this.sandbox.eval(code);
  }

  /** Resolves when no background work (`run`) is left. */
  async whenIdle(): Promise<void> {
    while (this.work.size > 0) await Promise.allSettled([...this.work]);
  }

  /**
   * Ends the console's background activity: pending timers (delayed events, the reboot after
   * `module reset`) are cancelled, sleeping commands wake, `run` sends nothing more, the script
   * engine (a worker thread) ends.
   */
  dispose(): void {
    if (this.isDisposed) return;
    this.isDisposed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const wake of this.sleepers) wake();
    this.sleepers.clear();
    this.trip.dispose();
    this.sandbox.close();
  }

  get disposed(): boolean {
    return this.isDisposed;
  }

  private runLines(payload: string, out: Output): Promise<void> | undefined {
    const lines = splitLines(payload);
    const next = (i: number): Promise<void> | undefined => {
      for (; i < lines.length; i++) {
        const tokens = tokenize(lines[i] as string);
        if (tokens === null) {
          out.puts(TOKENIZE_ERROR);
          continue;
        }
        if (tokens.length === 0) continue;
        const { pending } = dispatch(this.root, tokens, out);
        if (pending) {
          const rest = i + 1;
          return pending.then(() => next(rest));
        }
      }
      return undefined;
    };
    return next(0);
  }

  private environment(text: MetricText): ConsoleEnv {
    return {
      services: this.services,
      options: this.options,
      text,
      root: this.root,
      now: () => this.services.vehicle.now(),
      hasVehicle: () => this.services.vehicle.typeCode !== '',
      dispatch: (argv, out): DispatchResult => dispatch(this.root, argv, out),
      runLines: (payload, out) => this.runLines(payload, out),
      evalScript: (code) => this.sandbox.eval(code),
      later: (ms, fn) => {
        if (this.isDisposed) return;
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          if (!this.isDisposed) fn();
        }, ms);
        this.timers.add(timer);
      },
      sleep: (ms) =>
        new Promise<void>((resolve) => {
          if (this.isDisposed) return resolve();
          const wake = (): void => {
            clearTimeout(timer);
            this.sleepers.delete(wake);
            resolve();
          };
          const timer = setTimeout(wake, ms);
          this.sleepers.add(wake);
        }),
      background: (work) => this.background(work),
      disposed: () => this.isDisposed,
    };
  }

  private background(work: Promise<void>): void {
    const tracked = work.catch(() => undefined).finally(() => this.work.delete(tracked));
    this.work.add(tracked);
  }
}
