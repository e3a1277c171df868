/** The `vts` command line: one file per command under src/cli/. */
import { Command, CommanderError } from 'commander';
import { isVtsError } from '../errors.js';
import { registerExec } from './exec.js';
import { registerModule } from './module.js';
import { registerServe } from './serve.js';
import { registerUser } from './user.js';
import { registerVehicle } from './vehicle.js';
import { VERSION } from '../version.js';

export function buildProgram(): Command {
  const program = new Command('vts')
    .description('vts: vehicle telemetry server (OVMS v2 compatible)')
    .version(VERSION)
    .showHelpAfterError()
    .exitOverride();
  registerServe(program);
  registerUser(program);
  registerVehicle(program);
  registerModule(program);
  registerExec(program);
  return program;
}

/** Runs the CLI; returns the exit code instead of exiting. */
export async function run(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    if (isVtsError(err)) {
      process.stderr.write(`vts: ${err.message} (${err.code})\n`);
      return 1;
    }
    process.stderr.write(`vts: ${(err as Error)?.stack ?? String(err)}\n`);
    return 1;
  }
}
