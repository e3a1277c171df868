/** The `vts` command line: one file per command under src/cli/. */
import { Command, CommanderError } from 'commander';
import { isVtsError } from '../errors.js';
import { registerBackup } from './backup.js';
import { registerExec } from './exec.js';
import { registerImport } from './import.js';
import { registerInvite } from './invite.js';
import { registerModule } from './module.js';
import { registerNotify } from './notify.js';
import { registerPush } from './push.js';
import { registerServe } from './serve.js';
import { registerSessions } from './sessions.js';
import { registerUser } from './user.js';
import { registerVehicle } from './vehicle.js';
import { VERSION } from '../util/version.js';

/** `vts user add` */
function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/**
 * After an option or argument error, every command prints one line pointing to its help, not the
 * whole help: the error stays visible.
 */
function addHelpHints(cmd: Command): void {
  const what = cmd.commands.length > 0 ? 'the commands' : 'the options';
  cmd.showHelpAfterError(`Run '${commandPath(cmd)} --help' for ${what}.`);
  cmd.commands.forEach(addHelpHints);
}

export function buildProgram(): Command {
  const program = new Command('vts')
    .description('vts: vehicle telemetry server (OVMS v2 compatible)')
    .version(VERSION)
    .exitOverride()
    // commander's `error: …` lines look like the other errors of vts (inherited by every command)
    .configureOutput({ outputError: (str, write) => write(str.replace(/^error: /, 'vts: ')) });
  registerServe(program);
  registerUser(program);
  registerInvite(program);
  registerVehicle(program);
  registerModule(program);
  registerExec(program);
  registerNotify(program);
  registerPush(program);
  registerImport(program);
  registerBackup(program);
  registerSessions(program);
  addHelpHints(program);
  return program;
}

const DEBUG_LEVELS: readonly unknown[] = ['debug', 'trace'];

/**
 * Whether an error gets its stack: at log level debug or trace, from the command's --log-level
 * (serve, module; also from its env variable or --config) or, for the commands without one
 * (user, vehicle, exec), from the environment variable VTS_LOG_LEVEL.
 */
function wantsStack(cmd: Command | undefined): boolean {
  const own = cmd?.options.some((o) => o.attributeName() === 'logLevel') ? cmd.getOptionValue('logLevel') : undefined;
  return DEBUG_LEVELS.includes(own ?? process.env.VTS_LOG_LEVEL);
}

/** The stack of an error and of its causes. */
function stacks(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err, depth = 0; e !== undefined && depth < 5; depth++) {
    parts.push((depth > 0 ? 'cause: ' : '') + (e instanceof Error ? (e.stack ?? e.message) : String(e)));
    e = e instanceof Error ? e.cause : undefined;
  }
  return parts.join('\n') + '\n';
}

/** Runs the CLI; returns the exit code instead of exiting. */
export async function run(argv: string[]): Promise<number> {
  const program = buildProgram();
  let active: Command | undefined;
  program.hook('preAction', (_program, actionCommand) => {
    active = actionCommand;
  });
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    // one line: what happened and what to do; where it happened only at log level debug
    const message = err instanceof Error ? err.message : String(err);
    const line = message.replace(/\s*\n\s*/g, ' ');
    process.stderr.write(isVtsError(err) ? `vts: ${line} (${err.code})\n` : `vts: ${line}\n`);
    if (wantsStack(active)) process.stderr.write(stacks(err));
    return 1;
  }
}
