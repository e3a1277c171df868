/**
 * Audit lines: one log line at info level for every change an administrator or an account holder
 * makes to accounts and their secrets (users, vehicles, API tokens, passwords, notification
 * targets). Each has `audit` (what was done), `by` (who: the account over HTTP, the system user on
 * the command line, with `sudoUser` under sudo), `via` (http, cli) and what it was done to; never a secret (a token is named
 * by its application, a password not at all). The server writes them to its log; the command
 * line's admin commands to their stderr as JSON when it is not a terminal (a script's, a service's,
 * a log's), and not at all on a terminal, where the answer is for a person (sudo logs the command
 * there): VTS_LOG_FORMAT=json or pretty prints them on a terminal too.
 */
import { userInfo } from 'node:os';
import type { Logger } from 'pino';
import { createLogger } from './log.js';

export type AuditAction =
  | 'user.add'
  | 'user.password'
  | 'user.remove'
  | 'user.admin_on'
  | 'user.admin_off'
  | 'vehicle.add'
  | 'vehicle.remove'
  | 'token.create'
  | 'token.revoke'
  | 'password.change'
  | 'notify.add'
  | 'notify.remove'
  | 'subscription.remove'
  | 'abrp.link'
  | 'abrp.unlink'
  | 'alert.add'
  | 'alert.change'
  | 'alert.remove'
  | 'alert.quiet'
  | 'invite.create'
  | 'invite.remove'
  | 'import';

export type AuditDetail = Record<string, string | number | boolean | undefined>;

export function audit(log: Logger, action: AuditAction, by: string, via: 'http' | 'cli', detail: AuditDetail = {}): void {
  log.info({ audit: action, by, via, ...detail }, `audit: ${action}`);
}

/** Who runs a command line: the system user of the process (its uid when it has no name). */
export function systemUser(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid ${process.getuid?.() ?? '?'}`;
  }
}

let cliLog: Logger | null = null;

/** An audit line of a command-line admin command, on stderr (not on a terminal, unless asked for). */
export function auditCli(action: AuditAction, detail: AuditDetail = {}): void {
  // VTS_LOG_FORMAT as for vts serve; without it, JSON when stderr is not a terminal, nothing when it is
  const format = process.env.VTS_LOG_FORMAT;
  if (process.stderr.isTTY === true && format !== 'json' && format !== 'pretty') return;
  cliLog ??= createLogger('info', 2, format === 'json' || format === 'pretty' ? format : undefined);
  // under sudo, who ran sudo as well (as sudo says: the variable is sudo's, but anyone can set it)
  const sudo = process.env.SUDO_USER;
  audit(cliLog, action, systemUser(), 'cli', sudo ? { sudoUser: sudo, ...detail } : detail);
}
