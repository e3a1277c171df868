/**
 * The audit log of account actions (issue 31, docs/accounts.md "The audit log"), part of the Store
 * on both databases (`store.audit`): who did what to which account or vehicle, when and through
 * what (the dashboard, the API, the command line). Written by src/auth/audit-log.ts (`AuditLog`),
 * read by the operator's page (`GET /api/admin/audit`), purged after `--audit-retention` days.
 * Direct writes; nothing cached here. Never a secret in an entry.
 */

/** What an entry tells besides its action, actor and target: a few plain values. */
export type AuditDetail = Record<string, string | number | boolean | null>;

export interface AuditEntry {
  /** Grows with every entry: the order of the log, and the cursor of its pages. */
  id: number;
  /** Epoch seconds. */
  time: number;
  /** What was done: `user.disable`, `session.signin`, … (src/auth/audit-log.ts `AuditAction`). */
  action: string;
  /** Who did it: a user name, `cli:<system user>` on the command line, or '' for nobody known. */
  actor: string;
  /** Through what: `web` (the dashboard), `api` (another HTTP client), `cli`, `mp`, `mqtt`, `system`. */
  via: string;
  /** What it was done to: a user name or a vehicle id ('' when nothing in particular). */
  target: string;
  detail: AuditDetail;
}

export type NewAuditEntry = Omit<AuditEntry, 'id'>;

/** A page of the log, newest first. */
export interface AuditQuery {
  /** Entries with a smaller id only (the `id` of the last entry of the page before). */
  before?: number;
  /** At most this many (1–500). */
  limit: number;
  /** An action (`user.disable`), or a family of them (`user`: every `user.…`). */
  action?: string;
  /** Done by this user (exactly, case-insensitively). */
  actor?: string;
  /** Done to this user or vehicle (exactly, case-insensitively). */
  target?: string;
}

export interface AuditStore {
  /** Adds an entry; resolves to its id. */
  add(entry: NewAuditEntry): Promise<number>;
  /** A page of the log, newest first (by id). */
  list(query: AuditQuery): Promise<AuditEntry[]>;
  /** The time of each of these users' latest `session.signin` entry (users without one are left out). */
  lastSignIns(names: readonly string[]): Promise<Map<string, number>>;
  /** Deletes at most `limit` entries older than `before` (epoch seconds); returns how many. */
  purge(before: number, limit: number): Promise<number>;
}

/** The entry's detail from its stored JSON text (anything else than an object: none). */
export function parseDetail(text: string): AuditDetail {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as AuditDetail) : {};
  } catch {
    return {};
  }
}

export interface AuditRow {
  id: number;
  time: number;
  action: string;
  actor: string;
  via: string;
  target: string;
  detail: string;
}

export const AUDIT_COLUMNS = 'id, time, action, actor, via, target, detail';

export const toAuditEntry = (r: AuditRow): AuditEntry => ({ id: r.id, time: r.time, action: r.action, actor: r.actor, via: r.via, target: r.target, detail: parseDetail(r.detail) });
