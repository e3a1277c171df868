/**
 * The audit log of account actions (docs/accounts.md "The audit log"): every sign-in (and failed
 * one on the dashboard), password change and reset, account made, disabled, enabled, verified or
 * removed, admin right given or taken, vehicle added or removed, share added or revoked, second
 * factor enrolled or removed. Each entry is kept in the database (`store.audit`, shown on the
 * operator's page, purged after `--audit-retention` days) and written as an audit line to the log
 * (src/util/audit.ts). Never a secret in an entry: a password not at all, a token by its name.
 *
 * Any part calls `record` (the HTTP handlers reach it as `ctx.audit`): it never throws, a failed
 * write is logged. Await it where the next request must see the entry (the tests' order).
 */
import type { Logger } from 'pino';
import type { AuditDetail, AuditStore } from '../store/audit-store.js';
import { systemUser } from '../util/audit.js';

/** The actions the parts of vts record; a part may add its own as `<area>.<verb>`. */
export type AuditAction =
  | 'session.signin'
  | 'session.signin_failed'
  | 'password.change'
  | 'password.reset'
  | 'user.add'
  | 'user.disable'
  | 'user.enable'
  | 'user.verify'
  | 'user.remove'
  | 'user.admin_on'
  | 'user.admin_off'
  | 'vehicle.add'
  | 'vehicle.remove'
  | 'share.add'
  | 'share.revoke'
  | 'totp.enable'
  | 'totp.disable'
  | 'passkey.add'
  | 'passkey.remove'
  | (string & {});

/** Through what an action came: the dashboard, another HTTP client, the command line, the server itself. */
export type AuditVia = 'web' | 'api' | 'cli' | 'mp' | 'mqtt' | 'system';

export interface AuditRecord {
  action: AuditAction;
  /** Who did it: the signed-in user's name, `cli:<system user>` for the command line, '' for nobody known. */
  actor: string;
  via: AuditVia;
  /** What it was done to: a user name or a vehicle id. */
  target?: string;
  /** A few plain values (the client's address, the new access of a share…); never a secret. */
  detail?: AuditDetail;
}

/** Who runs a command line, as an actor of the log: `cli:<system user>` (`cli:<user> (sudo <who>)` under sudo). */
export function cliActor(): string {
  const sudo = process.env.SUDO_USER;
  return `cli:${systemUser()}${sudo ? ` (sudo ${sudo})` : ''}`;
}

/**
 * Keeps the entry of a command-line admin command (its audit line is `auditCli`'s); a failed
 * write is said on stderr and does not fail the command.
 */
export async function recordCli(store: { readonly audit: AuditStore }, action: AuditAction, target: string, detail: AuditDetail = {}): Promise<void> {
  try {
    await store.audit.add({ time: Math.floor(Date.now() / 1000), action, actor: cliActor(), via: 'cli', target, detail });
  } catch (err) {
    process.stderr.write(`vts: the audit log entry could not be stored: ${err instanceof Error ? err.message : String(err)}\n`);
  }
}

/** Stores the entries of the server's parts, and writes their audit lines. */
export class AuditLog {
  constructor(
    private readonly store: { readonly audit: AuditStore },
    private readonly log: Logger,
    /** Epoch milliseconds (the server's clock). */
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** Keeps the entry and writes its audit line; resolves once it is stored (or its failure logged). */
  async record(r: AuditRecord): Promise<void> {
    const detail = r.detail ?? {};
    const target = r.target ?? '';
    // the log line as src/util/audit.ts writes it (`via` http for the dashboard and the API)
    const via = r.via === 'web' || r.via === 'api' ? 'http' : r.via;
    this.log.info({ audit: r.action, by: r.actor, via, ...detail }, `audit: ${r.action}`);
    try {
      await this.store.audit.add({ time: Math.floor(this.nowMs() / 1000), action: r.action, actor: r.actor, via: r.via, target, detail });
    } catch (err) {
      this.log.error({ err, audit: r.action }, 'audit log: the entry could not be stored');
    }
  }
}
