/**
 * What a caller asks a vehicle to run, and how it becomes an MP command (docs/protocol/commands.md §8.2,
 * docs/protocol/messages.md §5). Pure.
 *
 * The extended syntax of the custom server API and the apps' command shells:
 * - `#<code>[,<params>][/<recordcount>]`: a raw MP command; `/<n>` says how many `c` records answer
 *   it (e.g. `#3/32`, the 32 parameter slots);
 * - `*<ussd>#`: a USSD request, MP 41 with the whole string;
 * - `@<modem command>`: an AT command to the modem, MP 49 without the `@`;
 * - anything else: a shell command, MP 7.
 * JavaScript is a shell command too: `script eval <code>`, quoted as the console reads it (script-eval.ts).
 */
import { VtsError } from '../../errors.js';
import { scriptEvalLine } from './script-eval.js';

export type CommandKind = 'shell' | 'js' | 'mp';

/** An MP command: `C<code>,<params>`, answered by `records` `c` lines. */
export interface MpCommand {
  code: number;
  params: string;
  /**
   * How many `c` records make the answer, when the caller said (`/<n>`); otherwise the answer is
   * complete by the protocol's rule (one record; functions 1 and 3 say their count themselves).
   */
  records?: number;
}

const syntax = (detail: string): VtsError => new VtsError('VTS_ERR_COMMAND_SYNTAX', detail);

/** The longest command text accepted (the module's console takes 2000 bytes over HTTP). */
export const MAX_COMMAND_LENGTH = 2000;
/** The most `c` records one command may collect. */
export const MAX_RECORDS = 1000;

const RAW = /^#(\d{1,4})(?:,([^/]*))?(?:\/(\d{1,4}))?$/;

/** The MP command for a text in the extended syntax. */
export function parseExtended(text: string): MpCommand {
  if (text.startsWith('#')) {
    const m = RAW.exec(text);
    if (!m) throw syntax('expected #<code>[,<params>][/<recordcount>]');
    const code = Number(m[1]);
    if (m[3] === undefined) return { code, params: m[2] ?? '' };
    const records = Number(m[3]);
    // 0: no answer is expected (FW3 reboots on command 5 without one)
    if (records > MAX_RECORDS) throw syntax(`record count must be 0..${MAX_RECORDS}`);
    return { code, params: m[2] ?? '', records };
  }
  if (text.startsWith('*') && text.endsWith('#') && text.length > 2) return { code: 41, params: text };
  if (text.startsWith('@') && text.length > 1) return { code: 49, params: text.slice(1) };
  return { code: 7, params: text };
}

/** The MP command for a request of a kind: `mp` uses the extended syntax, `js` runs as `script eval`. */
export function toMpCommand(kind: CommandKind, text: string): MpCommand {
  if (text.trim() === '') throw syntax('empty command');
  if (text.length > MAX_COMMAND_LENGTH) throw syntax(`command longer than ${MAX_COMMAND_LENGTH} characters`);
  if (/[\r\n]/.test(text) && kind !== 'js') throw syntax('a command is one line');
  switch (kind) {
    case 'shell':
      return { code: 7, params: text };
    case 'js':
      return { code: 7, params: scriptEvalLine(text.replace(/\r\n/g, '\n')) };
    case 'mp':
      return parseExtended(text.startsWith('#') || text.startsWith('*') || text.startsWith('@') ? text : '#' + text);
  }
}

/** `<code>,<params>`: the data of the `C` message. */
export function mpCommandData(c: MpCommand): string {
  return c.params === '' ? String(c.code) : `${c.code},${c.params}`;
}
