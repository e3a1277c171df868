/**
 * `metrics list [-cimnpst] [<metric>]`, `metrics get <metric> [<unit>]` and
 * `metrics set <metric> <value> [<unit>]` (docs/protocol/module-console.md §5) over the vehicle's metric set.
 */
import type { ConsoleEnv } from './env.js';
import type { Output } from './command.js';
import { unitByPrefix, type UnitMode } from './units.js';

/** `cat -t`: control characters (TAB too) as `^X`, DEL as `^?`. */
function displayEncode(s: string): string {
  let r = '';
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    r += c < 0x20 ? '^' + String.fromCharCode(c + 64) : c === 0x7f ? '^?' : ch;
  }
  return r;
}

function list(env: ConsoleEnv, args: readonly string[], out: Output, usage: () => void): void {
  let showStale = false;
  let showSet = false;
  let onlyPersistent = false;
  let encode = false;
  let mode: UnitMode = 'user';
  let filter: string | undefined;
  for (const arg of args) {
    if (!arg.startsWith('-')) {
      if (filter !== undefined) return usage();
      filter = arg;
      continue;
    }
    for (const flag of arg.slice(1)) {
      switch (flag) {
        case 'c':
          showSet = true;
          break;
        case 'i':
          mode = 'imperial';
          break;
        case 'm':
          mode = 'metric';
          break;
        case 'n':
          mode = 'native';
          break;
        case 'p':
          onlyPersistent = true;
          break;
        case 's':
          showStale = true;
          break;
        case 't':
          encode = true;
          break;
        default:
          return usage();
      }
    }
  }
  const t = env.text;
  const metrics = env.services.vehicle.metrics;
  const now = env.now();
  let found = false;
  for (const name of t.names()) {
    if (onlyPersistent && !t.def(name)?.persistent) continue;
    if (filter !== undefined && !name.includes(filter)) continue;
    found = true;
    if (showSet) {
      const v = t.plain(name);
      if (v !== undefined) out.puts(`metrics set ${name} ${v}`);
      continue;
    }
    let value = t.text(name, { unit: mode });
    if (showStale) {
      const updated = metrics.updated(name);
      if (value === undefined || updated === undefined) out.write('[---] ');
      else {
        const age = Math.min(99, Math.max(0, Math.floor(now - updated)));
        out.write(`[${String(age).padStart(2, '0')}${metrics.isStale(name, now) ? 'S' : '-'}] `);
      }
    }
    if (value === undefined || value === '') {
      out.puts(name);
      continue;
    }
    if (encode && t.type(name) === 'S') value = displayEncode(value);
    out.puts(`${name.slice(0, 40).padEnd(40)} ${value}`);
  }
  if (filter !== undefined && !found) out.puts('Unrecognised metric name');
}

export function registerMetricsCommands(env: ConsoleEnv): void {
  const metrics = env.root.add('metrics', { title: 'METRICS framework' });
  const t = env.text;

  const listCmd = metrics.add('list', {
    title: 'Show all metrics',
    usage: '[-cimnpst] [<metric>]',
    min: 0,
    max: 9,
    run: ({ args, out }) => list(env, args, out, () => out.puts(listCmd.usage())),
  });

  metrics.add('get', {
    title: 'Show the value of a metric',
    usage: '<metric> [<unit>]',
    min: 1,
    max: 2,
    run: ({ args, out }) => {
      const name = args[0] as string;
      if (!t.known(name)) return out.puts('(not found)');
      let unit: ReturnType<typeof unitByPrefix> = 'native';
      if (args.length > 1) {
        unit = unitByPrefix(args[1] as string);
        if (unit === undefined) return out.puts('(invalid unit)');
      }
      out.puts(t.text(name, { unit }) ?? '(not set)');
    },
  });

  metrics.add('set', {
    title: 'Set the value of a metric',
    usage: '<metric> <value> [<unit>]',
    min: 2,
    max: 3,
    run: ({ args, out }) => {
      const name = args[0] as string;
      let unit: ReturnType<typeof unitByPrefix>;
      if (args.length > 2) unit = unitByPrefix(args[2] as string);
      const value = t.known(name) && (args.length < 3 || unit !== undefined) ? t.parse(name, args[1] as string, typeof unit === 'object' ? unit : undefined) : undefined;
      if (value === undefined) return out.puts('Metric could not be set');
      env.services.vehicle.metrics.set(name, value, env.now());
      out.puts('Metric set');
    },
  });
}
