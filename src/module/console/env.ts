/**
 * What the command groups of the module console share: the module's services, the options, the
 * metric formatter and the console's own machinery (running further commands, scripts, timers and
 * background work that end when the console is disposed).
 */
import type { Command, DispatchResult, Output } from './command.js';
import type { MetricText } from './metric-text.js';
import type { ModuleServices } from './services.js';

export interface ModuleConsoleOptions {
  /** Time limit of one `script eval` (ms, default 2000). */
  scriptTimeoutMs?: number;
  /** Most characters one `script eval` may print (default 65536). */
  scriptOutputLimit?: number;
  /** Heap limit of the script engine (MB, default 64). */
  scriptMemoryMb?: number;
  /** Longest `sleep` (seconds, default 60). */
  maxSleepSeconds?: number;
  /** Delay between `module reset`'s answer and services.reboot() (ms, default 1000, as the firmware). */
  rebootDelayMs?: number;
}

export const DEFAULT_OPTIONS: Required<ModuleConsoleOptions> = {
  scriptTimeoutMs: 2000,
  scriptOutputLimit: 65536,
  scriptMemoryMb: 64,
  maxSleepSeconds: 60,
  rebootDelayMs: 1000,
};

export interface ConsoleEnv {
  readonly services: ModuleServices;
  readonly options: Required<ModuleConsoleOptions>;
  readonly text: MetricText;
  readonly root: Command;
  /** The module's clock (epoch seconds). */
  now(): number;
  /** False when the vehicle has no type (`Error: No vehicle module selected`). */
  hasVehicle(): boolean;
  /** Runs tokens as a command (after tokenising). */
  dispatch(argv: readonly string[], out: Output): DispatchResult;
  /**
   * Runs the lines of a payload one after the other (tokenising each), writing to `out`; a
   * promise only when a command had to wait.
   */
  runLines(payload: string, out: Output): Promise<void> | undefined;
  /** `script eval`: the output of JavaScript run in the module's engine (a string when immediate). */
  evalScript(code: string): Promise<string> | string;
  /** Calls `fn` after `ms` unless the console has been disposed by then. */
  later(ms: number, fn: () => void): void;
  /** Waits `ms`; resolves early when the console is disposed. */
  sleep(ms: number): Promise<void>;
  /** Registers background work, for whenIdle(). */
  background(work: Promise<void>): void;
  /** True once the console has been disposed (background work stops). */
  disposed(): boolean;
}
