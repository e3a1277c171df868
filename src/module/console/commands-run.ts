/**
 * `run [-n<i|o|s>] [-S<stacksize>] [-P<priority>] <command…> [; <command…>]` (docs/protocol/commands.md
 * §7, docs/protocol/module-console.md §9): answers `Background execution started.` at once, then runs the
 * commands one after the other in the background. With `-ni` (default) each command's output
 * becomes an `info` notification with subtype `cmd.<full command name, dots for spaces>` (the
 * name the tokens resolved to, e.g. `cmd.metrics.list` for `met l`; `cmd.none` when not even the
 * first word was a command) and the text `(done, no output)` when there was none. `-ns` sends
 * stream notifications, which reach no server link, so here it notifies nobody, as `-no`.
 * `-S` and `-P` (task stack and priority) are accepted and have no effect.
 */
import { Output } from './command.js';
import type { ConsoleEnv } from './env.js';

const USAGE_TEMPLATE = '[-n<i|o|s>] [-S<stacksize>] [-P<priority>] <command…> [; <command…>]';

async function runInBackground(env: ConsoleEnv, commands: readonly string[][], notify: boolean): Promise<void> {
  // Let the caller's answer leave first, as the firmware's separate task does.
  await new Promise<void>((resolve) => setImmediate(resolve));
  for (const argv of commands) {
    if (env.disposed()) return;
    const out = new Output();
    const result = env.dispatch(argv, out);
    if (result.pending) await result.pending;
    if (env.disposed()) return;
    if (!notify) continue;
    const name = result.command ? result.command.fullName().replace(/ /g, '.') : 'none';
    env.services.notify({ type: 'info', subtype: `cmd.${name}`, text: out.length > 0 ? out.text() : '(done, no output)' });
  }
}

export function registerRunCommand(env: ConsoleEnv): void {
  env.root.add('run', {
    title: 'Run command(s) in background task',
    usage: USAGE_TEMPLATE,
    min: 1,
    max: 127,
    run: ({ args, out, command }) => {
      let mode = 'i';
      let i = 0;
      for (; i < args.length && (args[i] as string).startsWith('-'); i++) {
        const opt = args[i] as string;
        const ok = /^-n[ios]$/.test(opt) || /^-[SP]\d+$/.test(opt);
        if (!ok) {
          out.puts(`ERROR: unknown option: ${opt}`);
          out.puts(command.usage());
          return;
        }
        if (opt.startsWith('-n')) mode = opt.charAt(2);
      }
      const commands: string[][] = [];
      let current: string[] = [];
      for (const token of args.slice(i)) {
        if (token === ';') {
          if (current.length > 0) commands.push(current);
          current = [];
        } else current.push(token);
      }
      if (current.length > 0) commands.push(current);
      if (commands.length === 0) return out.puts('ERROR: no command');
      out.puts('Background execution started.');
      env.background(runInBackground(env, commands, mode === 'i'));
    },
  });
}
