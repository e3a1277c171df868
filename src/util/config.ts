/**
 * The one place that reads configuration. Every option of a command is a flag `--some-name`, an
 * environment variable `VTS_SOME_NAME` and a key (`some-name` or `someName`) of the JSON file named
 * by `--config`; precedence: flag, then environment, then file, then the built-in default.
 */
import { readFileSync } from 'node:fs';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { VtsError, isVtsError } from '../errors.js';

export function envName(longFlag: string): string {
  return 'VTS_' + longFlag.replace(/^--/, '').replace(/-/g, '_').toUpperCase();
}

/** Adds `--flag` with its environment variable (and optional parser and default) to `cmd`. */
export function addConfigOption(
  cmd: Command,
  flags: string,
  description: string,
  settings: { default?: unknown; parse?: (value: string) => unknown; defaultText?: string } = {},
): Command {
  const opt = new Option(flags, description);
  const long = opt.long;
  if (long) opt.env(envName(long));
  if (settings.parse) {
    const parse = settings.parse;
    opt.argParser((v: string) => {
      try {
        return parse(v);
      } catch (err) {
        // commander says which option and value: the detail alone says what is wrong with it
        throw new InvalidArgumentError(isVtsError(err) && err.detail ? err.detail : (err as Error).message);
      }
    });
  }
  if (settings.default !== undefined) opt.default(settings.default, settings.defaultText);
  return cmd.addOption(opt);
}

export function addConfigFileOption(cmd: Command): Command {
  return cmd.addOption(
    new Option('--config <file>', 'JSON file with option values (keys as the long flags)').env('VTS_CONFIG'),
  );
}

/** Attribute names of the options of every command of the program `cmd` belongs to. */
function allOptionNames(cmd: Command): Set<string> {
  let root = cmd;
  while (root.parent) root = root.parent;
  const names = new Set<string>();
  const visit = (c: Command): void => {
    for (const o of c.options) names.add(o.attributeName());
    c.commands.forEach(visit);
  };
  visit(root);
  return names;
}

/**
 * Fills in options from the `--config` file where neither a flag nor the environment set them,
 * then returns the merged option values. One file can serve every command: keys that belong to
 * another vts command are skipped; a key no command knows is an error (a typo).
 */
export function resolveOptions<T extends object>(cmd: Command): T {
  const file = cmd.getOptionValue('config') as string | undefined;
  if (file) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new VtsError('VTS_ERR_CONFIG', `cannot read config file ${file}: ${(err as Error).message}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new VtsError('VTS_ERR_CONFIG', `config file ${file} must hold a JSON object`);
    }
    for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
      const attr = key.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
      if (attr === 'config') throw new VtsError('VTS_ERR_CONFIG', `"${key}" cannot be set in ${file}`);
      const opt = cmd.options.find((o) => o.attributeName() === attr);
      if (!opt) {
        if (allOptionNames(cmd).has(attr)) continue;
        throw new VtsError('VTS_ERR_CONFIG', `unknown key "${key}" in ${file}`);
      }
      const source = cmd.getOptionValueSource(attr);
      if (source === 'cli' || source === 'env') continue;
      cmd.setOptionValueWithSource(attr, fileValue(opt, key, value, file), 'config');
    }
  }
  return cmd.opts<T>();
}

/**
 * A value of the config file, checked as its flag would be: a switch takes true or false, an
 * option with a value takes a string or a number, parsed by the option's own parser.
 */
function fileValue(opt: Option, key: string, value: unknown, file: string): unknown {
  const bad = (why: string): VtsError => new VtsError('VTS_ERR_CONFIG', `"${key}" in ${file}: ${why}`);
  if (opt.isBoolean()) {
    if (typeof value !== 'boolean') throw bad('must be true or false');
    return value;
  }
  if (typeof value !== 'string' && typeof value !== 'number') {
    // a list or an object may hold anything (a password): named, not printed
    const what = Array.isArray(value) ? 'a list' : typeof value === 'object' && value !== null ? 'an object' : JSON.stringify(value);
    throw bad(`must be a string or a number, not ${what}`);
  }
  if (!opt.parseArg) return value;
  try {
    return opt.parseArg(String(value), undefined);
  } catch (err) {
    throw bad(err instanceof Error ? err.message : String(err));
  }
}

/** Parses a TCP port (0 = any free port). */
export function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isInteger(n) || n < 0 || n > 65535) {
    throw new VtsError('VTS_ERR_CONFIG', `not a port number: ${value}`);
  }
  return n;
}

/** Parses a non-negative integer (seconds, counts). */
export function parseCount(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) {
    throw new VtsError('VTS_ERR_CONFIG', `not a non-negative integer: ${value}`);
  }
  return n;
}

/** A whole number from `min` to `max` (e.g. seconds a timer may wait: node's timers stop at 2^31 ms). */
export function parseCountIn(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = parseCount(value);
    if (n < min || n > max) throw new VtsError('VTS_ERR_CONFIG', `not from ${min} to ${max}: ${value}`);
    return n;
  };
}

/** A login-throttle bucket as `<burst>/<per minute>`, e.g. `10/2`; `0/0` turns it off. */
export function parseBucket(value: string): { burst: number; perMinute: number } {
  const m = /^\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)\s*$/.exec(value);
  if (!m || (Number(m[1]) > 0 && Number(m[2]) === 0)) {
    throw new VtsError('VTS_ERR_CONFIG', `not <attempts at once>/<attempts per minute> (e.g. 10/2; 0/0 = off): ${value}`);
  }
  return { burst: Number(m[1]), perMinute: Number(m[2]) };
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function parseLogLevel(value: string): LogLevel {
  if (!(LOG_LEVELS as readonly string[]).includes(value)) {
    throw new VtsError('VTS_ERR_CONFIG', `log level must be one of ${LOG_LEVELS.join(', ')}`);
  }
  return value as LogLevel;
}
