/**
 * Masks the secrets a console or MP command can carry, for the command audit and the logs: PINs
 * of lock, unlock and valet, passwords set through `config set password …`, and the password
 * parameters of MP command 4 (1: module password, 9: server password). Pure.
 */
import type { MpCommand } from './request.js';

const MASK = '***';

/**
 * Console commands whose arguments after the command words are secret. The secret runs to the end
 * of the text, whatever it holds (`[\s\S]`: `.` would stop at CR, LF, U+2028 and U+2029 and leave
 * the whole secret unmasked).
 */
const SECRET_ARGS = /^(\s*(?:lock|unlock|valet|unvalet)\s+)(\S[\s\S]*)$/i;
const CONFIG_PASSWORD = /^(\s*config\s+set\s+password\s+\S+\s+)(\S[\s\S]*)$/i;
const SECRET_PARAMS = new Set([1, 9]);

export function redactShell(text: string): string {
  return text.replace(SECRET_ARGS, `$1${MASK}`).replace(CONFIG_PASSWORD, `$1${MASK}`);
}

/** The command as it may be recorded: `<code>,<params>` with secrets masked. */
export function redactMp(c: MpCommand): string {
  switch (c.code) {
    case 7:
      return `7,${redactShell(c.params)}`;
    case 20:
    case 21:
    case 22:
    case 23:
      return c.params === '' ? String(c.code) : `${c.code},${MASK}`;
    case 4: {
      // the module reads the slot with atoi: ` 1`, `01` and `+9` are slots 1 and 9 too
      const [n = ''] = c.params.split(',', 1);
      return SECRET_PARAMS.has(Number.parseInt(n, 10)) ? `4,${n},${MASK}` : `4,${c.params}`;
    }
    default:
      return c.params === '' ? String(c.code) : `${c.code},${c.params}`;
  }
}
