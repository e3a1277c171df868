/**
 * MP commands as v3 console commands, for vehicles reached over MQTT (docs/protocol/mqtt-v3.md §11.7), and the
 * MP outcome of their console output. Pure.
 *
 * The outcome follows the module's own texts where §11.7 names them (e.g. `Vehicle locked`), else:
 * output containing `not available` → 2 (unsupported, also `Error: … not available`); starting
 * `Error:` → 1 (failed); command 7 is
 * always 0 with the output as text. An MP function without a console equivalent is 3
 * (unimplemented), as the module answers functions it does not know.
 */
import type { CommandOutcome, MpResultCode } from './result.js';
import type { MpCommand } from './request.js';

export interface ShellCommand {
  line: string;
  /** The output that means success (anything else is a failure); none for command 7. */
  success?: RegExp;
}

const CHARGE_MODES: Readonly<Record<string, string>> = { '0': 'standard', '1': 'storage', '3': 'range', '4': 'performance' };

const first = (params: string): string => (params.split(',', 1)[0] ?? '').trim();

/** The console command for an MP command; null when it has none. */
export function mpToShell(cmd: MpCommand): ShellCommand | null {
  const p = first(cmd.params);
  switch (cmd.code) {
    case 7:
      return cmd.params.trim() === '' ? null : { line: cmd.params };
    case 10: {
      const mode = Object.hasOwn(CHARGE_MODES, p) ? CHARGE_MODES[p] : undefined;
      return mode ? { line: `charge mode ${mode}`, success: /^Charge mode '.*' set/ } : null;
    }
    case 11:
      return { line: 'charge start', success: /^Charge has been started/ };
    case 12:
      return { line: 'charge stop', success: /^Charge has been stopped/ };
    case 15:
      return /^\d{1,3}$/.test(p) ? { line: `charge current ${p}`, success: /^Charge current limit set to/ } : null;
    case 18:
    case 19:
      return { line: 'wakeup', success: /^Vehicle has been woken/ };
    case 20:
      return { line: withPin('lock', p), success: /^Vehicle locked/ };
    case 21:
      return { line: withPin('valet', p), success: /^Vehicle valet mode activated/ };
    case 22:
      return { line: withPin('unlock', p), success: /^Vehicle unlocked/ };
    case 23:
      return { line: withPin('unvalet', p), success: /^Vehicle valet mode deactivated/ };
    case 24:
      return /^\d{1,2}$/.test(p) ? { line: `homelink ${Number(p) + 1}`, success: /^Homelink #\d+ activated/ } : null;
    case 25:
      return { line: 'charge cooldown', success: /^Cooldown has been started/ };
    case 26:
      return p === '0' || p === '1' ? { line: `climatecontrol ${p === '1' ? 'on' : 'off'}`, success: /^Climate Control/ } : null;
    case 49:
      return cmd.params.trim() === '' ? null : { line: `cellular cmd ${cmd.params}`, success: /^(?![\s\S]*ERROR)[\s\S]*\S/ };
    default:
      return null;
  }
}

/** A PIN as one console argument (digits only; anything else is dropped). */
function withPin(verb: string, pin: string): string {
  return /^\d{1,12}$/.test(pin) ? `${verb} ${pin}` : verb;
}

/**
 * The outcome of a console command's output (CR LF and CR as LF). Command 7 keeps the text whole, as
 * the v2 module's `c7` does; for the others the text is trimmed.
 */
export function shellOutcome(cmd: MpCommand, shell: ShellCommand, output: string): CommandOutcome {
  const text = output.replace(/\r\n?/g, '\n');
  if (cmd.code === 7) return { result: 0, output: text };
  const trimmed = text.trim();
  let result: MpResultCode;
  if (/not available/i.test(trimmed)) result = 2; // `Error: … functionality not available`
  else if (trimmed.startsWith('Error:')) result = 1;
  else result = shell.success === undefined || shell.success.test(trimmed) ? 0 : 1;
  return { result, output: trimmed };
}

/** The outcome of an MP function that has no console equivalent. */
export function unmappedOutcome(): CommandOutcome {
  return { result: 3, output: '' };
}

/** The `c` record an MP client gets for an outcome: `<fn>,<rc>` or `<fn>,<rc>,<text>`. */
export function responseData(cmd: MpCommand, outcome: CommandOutcome, encode: (text: string) => string): string {
  if (cmd.code === 7) return `7,${outcome.result},${encode(outcome.output)}`;
  const withText = outcome.output !== '' && (outcome.result !== 0 || cmd.code === 49);
  return withText ? `${cmd.code},${outcome.result},${encode(outcome.output)}` : `${cmd.code},${outcome.result}`;
}
