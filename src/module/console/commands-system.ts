/**
 * Configuration, notifications, events and the console utilities (docs/protocol/module-console.md §8, §2):
 * `config list|get|set|rm`, `notify raise text|command`, `event raise`, `echo`, `sleep`, `help`,
 * `enable`, `disable`, `exit`.
 */
import type { NotificationType } from './services.js';
import { Output } from './command.js';
import { atof, atoi } from './c-numbers.js';
import type { ConsoleEnv } from './env.js';

const NOTIFICATION_TYPES: readonly string[] = ['info', 'alert', 'error', 'data'] satisfies NotificationType[];

function registerConfig(env: ConsoleEnv): void {
  const cfg = env.services.config;
  const config = env.root.add('config', { title: 'CONFIG framework' });
  config.add('list', {
    title: 'Show configuration parameters/instances',
    usage: '[<param>]',
    min: 0,
    max: 1,
    run: ({ args, out }) => {
      if (args.length === 0) {
        for (const p of cfg.params()) out.puts(`${p.padEnd(20)} ${cfg.title(p) ?? ''}`);
        return;
      }
      const p = args[0] as string;
      const access = cfg.access(p);
      if (!access) return out.puts(`${p} not found`);
      out.puts(`${p} (${access.readable ? 'readable' : 'protected'} ${access.writeable ? 'writeable' : 'read-only'})`);
      for (const [instance, value] of cfg.instances(p) ?? []) out.puts(access.readable ? `  ${instance}: ${value}` : `  ${instance}`);
    },
  });
  /** The error line for a parameter that cannot be changed, undefined when it can. */
  const refuse = (p: string): string | undefined => {
    const access = cfg.access(p);
    if (!access) return 'Error: parameter not found';
    if (!access.writeable) return 'Error: parameter is not writeable';
    return undefined;
  };
  // Not in the firmware (which reads single values through `config list <param>`): one value,
  // for scripts that want it without parsing the listing.
  config.add('get', {
    title: 'Show parameter:instance value',
    usage: '<param> <instance>',
    min: 2,
    max: 2,
    run: ({ args, out }) => {
      const [p, instance] = args as [string, string];
      const access = cfg.access(p);
      if (!access) return out.puts('Error: parameter not found');
      if (!access.readable) return out.puts('Error: parameter is protected');
      const value = cfg.get(p, instance);
      out.puts(value === undefined ? `Error: ${p} ${instance} is not set` : value);
    },
  });
  config.add('set', {
    title: 'Set parameter:instance=value',
    usage: '<param> <instance> <value>',
    min: 3,
    max: 3,
    run: ({ args, out }) => {
      const [p, instance, value] = args as [string, string, string];
      const error = refuse(p);
      if (error) return out.puts(error);
      cfg.set(p, instance, value);
      out.puts('Parameter has been set.');
    },
  });
  config.add('rm', {
    title: 'Remove parameter:instance',
    usage: '<param> {<instance> | *}',
    min: 2,
    max: 2,
    run: ({ args, out }) => {
      const [p, instance] = args as [string, string];
      const error = refuse(p);
      if (error) return out.puts(error);
      const removed = cfg.remove(p, instance);
      // The firmware says nothing when the instance did not exist.
      if (instance === '*') out.puts(`Parameter ${p} has been removed.`);
      else if (removed) out.puts(`Instance ${instance} has been removed.`);
    },
  });
}

function registerNotify(env: ConsoleEnv): void {
  const notify = env.root.add('notify', { title: 'NOTIFICATION framework' });
  const raise = notify.add('raise', { title: 'NOTIFICATION raise framework' });
  const emit = (type: string, subtype: string, text: string): void => {
    // Types no link carries (e.g. `stream`) reach nobody.
    if (NOTIFICATION_TYPES.includes(type)) env.services.notify({ type: type as NotificationType, subtype, text });
  };
  raise.add('text', {
    title: 'Raise a textual notification',
    usage: '<type> <subtype> <message>',
    min: 3,
    max: 3,
    run: ({ args, out }) => {
      const [type, subtype, message] = args as [string, string, string];
      out.puts(`Raise text notification for ${type}/${subtype} as ${message}`);
      emit(type, subtype, message);
    },
  });
  raise.add('command', {
    title: 'Raise a command callback notification',
    usage: '<type> <subtype> <command>',
    min: 3,
    max: 3,
    run: ({ args, out }) => {
      const [type, subtype, command] = args as [string, string, string];
      out.puts(`Raise command notification for ${type}/${subtype} as ${command}`);
      const inner = new Output(out.inScript);
      const pending = env.runLines(command, inner);
      if (!pending) return emit(type, subtype, inner.text());
      return pending.then(() => emit(type, subtype, inner.text()));
    },
  });
}

export function registerSystemCommands(env: ConsoleEnv): void {
  const root = env.root;
  registerConfig(env);
  registerNotify(env);

  const event = root.add('event', { title: 'EVENT framework' });
  event.add('raise', {
    title: 'Raise a textual event',
    usage: '[-d<delay_ms>] <event>',
    min: 1,
    max: 2,
    run: ({ args, out, command }) => {
      let name = args[0] as string;
      let delay: number | undefined;
      if (name.startsWith('-d')) {
        if (args.length < 2) return out.puts(command.usage());
        delay = Math.max(0, atoi(name.slice(2)));
        name = args[1] as string;
      } else if (args.length > 1) return out.puts(command.usage());
      if (delay === undefined) {
        out.puts(`Raising event: ${name}`);
        env.services.raiseEvent(name);
      } else {
        out.puts(`Raising event in ${delay} ms: ${name}`);
        env.later(delay, () => env.services.raiseEvent(name));
      }
    },
  });

  root.add('echo', {
    title: 'Script utility: output text',
    usage: '[<text> …]',
    min: 0,
    max: 127,
    run: ({ args, out }) => {
      if (args.length === 0) out.puts('');
      for (const a of args) out.puts(a);
    },
  });

  root.add('sleep', {
    title: 'Script utility: pause execution',
    usage: '<seconds>',
    min: 1,
    max: 1,
    run: ({ args }) => {
      const seconds = Math.min(env.options.maxSleepSeconds, Math.max(0, atof(args[0] as string)));
      return env.sleep(seconds * 1000);
    },
  });

  root.add('help', {
    title: 'Ask for help',
    run: ({ out }) => {
      out.puts('Enter "?" on its own to list the root commands.');
      out.puts('Commands can have several levels of subcommands.');
      out.puts('"<command> ?" lists the subcommands and parameters of a command.');
      out.puts('Every command word can be abbreviated to a unique prefix; on an interactive');
      out.puts('console <TAB> completes words, also at the start of a subcommand.');
      out.puts('"enable" enters secure (admin) mode.');
    },
  });

  root.add('enable', {
    title: 'Enter secure mode',
    usage: '[<password>]',
    min: 0,
    max: 1,
    run: async ({ args, out }) => {
      const password = env.services.config.get('password', 'module') ?? '';
      if (password === '' || args[0] === password) return out.puts('Secure mode');
      await env.sleep(5000); // the firmware's penalty for a wrong password
      out.puts('Error: Invalid or missing password');
    },
  });
  root.add('disable', { title: 'Leave secure mode', run: () => undefined });
  root.add('exit', { title: 'End console session', run: ({ out }) => out.puts('This console cannot exit.') });
}
