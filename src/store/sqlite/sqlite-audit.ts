/**
 * The audit log on SQLite (AuditStore, src/store/audit-store.ts): the audit_log table. Direct
 * writes on the store's connection (synchronous=FULL); nothing cached.
 */
import type Database from 'better-sqlite3';
import { AUDIT_COLUMNS, toAuditEntry, type AuditEntry, type AuditQuery, type AuditRow, type AuditStore, type NewAuditEntry } from '../audit-store.js';

/** The WHERE clause of a query's filters, with its values in order. */
function filters(q: AuditQuery): { where: string; values: (string | number)[] } {
  const parts: string[] = [];
  const values: (string | number)[] = [];
  if (q.before !== undefined) {
    parts.push('id < ?');
    values.push(q.before);
  }
  if (q.action) {
    // an action, or its family: `user` is every `user.…`
    parts.push("(action = ? OR substr(action, 1, length(?) + 1) = ? || '.')");
    values.push(q.action, q.action, q.action);
  }
  if (q.actor) {
    parts.push('actor = ? COLLATE NOCASE');
    values.push(q.actor);
  }
  if (q.target) {
    parts.push('target = ? COLLATE NOCASE');
    values.push(q.target);
  }
  return { where: parts.length > 0 ? `WHERE ${parts.join(' AND ')}` : '', values };
}

export class SqliteAuditStore implements AuditStore {
  private readonly addStmt: Database.Statement<[number, string, string, string, string, string]>;
  private readonly purgeStmt: Database.Statement<[number, number]>;
  /** The list statements by the filters they have. */
  private readonly lists = new Map<string, Database.Statement<(string | number)[], AuditRow>>();

  /** `open` throws VTS_ERR_STORE_CLOSED once the store is closed. */
  constructor(
    private readonly db: Database.Database,
    private readonly open: () => void,
  ) {
    this.addStmt = db.prepare('INSERT INTO audit_log (time, action, actor, via, target, detail) VALUES (?, ?, ?, ?, ?, ?)');
    this.purgeStmt = db.prepare('DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE time < ? ORDER BY time LIMIT ?)');
  }

  async add(e: NewAuditEntry): Promise<number> {
    this.open();
    return Number(this.addStmt.run(e.time, e.action, e.actor, e.via, e.target, JSON.stringify(e.detail)).lastInsertRowid);
  }

  async list(q: AuditQuery): Promise<AuditEntry[]> {
    this.open();
    const { where, values } = filters(q);
    let stmt = this.lists.get(where);
    if (!stmt) {
      stmt = this.db.prepare<(string | number)[], AuditRow>(`SELECT ${AUDIT_COLUMNS} FROM audit_log ${where} ORDER BY id DESC LIMIT ?`);
      this.lists.set(where, stmt);
    }
    return stmt.all(...values, q.limit).map(toAuditEntry);
  }

  async lastSignIns(names: readonly string[]): Promise<Map<string, number>> {
    this.open();
    const out = new Map<string, number>();
    if (names.length === 0) return out;
    const rows = this.db
      .prepare<string[], { actor: string; time: number }>(
        `SELECT actor, max(time) AS time FROM audit_log WHERE action = 'session.signin' AND actor IN (${names.map(() => '?').join(', ')}) GROUP BY actor`,
      )
      .all(...names);
    for (const r of rows) out.set(r.actor, r.time);
    return out;
  }

  async purge(before: number, limit: number): Promise<number> {
    this.open();
    return this.purgeStmt.run(before, limit).changes;
  }
}
