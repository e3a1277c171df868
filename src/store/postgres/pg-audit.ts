/**
 * The audit log on PostgreSQL (AuditStore, src/store/audit-store.ts): the audit_log table, as the
 * PgStore's direct writes and reads; shared by the nodes of a cluster.
 */
import { AUDIT_COLUMNS, toAuditEntry, type AuditEntry, type AuditQuery, type AuditRow, type AuditStore, type NewAuditEntry } from '../audit-store.js';
import { changedRows, type PgAccess } from './pg-connection.js';

export class PgAuditStore implements AuditStore {
  constructor(private readonly db: PgAccess) {}

  async add(e: NewAuditEntry): Promise<number> {
    const { rows } = await this.db.change<{ id: number }>(
      'INSERT INTO audit_log (time, action, actor, via, target, detail) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id',
      [e.time, e.action, e.actor, e.via, e.target, JSON.stringify(e.detail)],
    );
    return Number(rows[0]!.id);
  }

  async list(q: AuditQuery): Promise<AuditEntry[]> {
    const parts: string[] = [];
    const values: unknown[] = [];
    const param = (v: unknown): string => {
      values.push(v);
      return `$${values.length}`;
    };
    if (q.before !== undefined) parts.push(`id < ${param(q.before)}`);
    if (q.action) {
      const a = param(q.action);
      // an action, or its family: `user` is every `user.…`
      parts.push(`(action = ${a}::text OR substr(action, 1, length(${a}::text) + 1) = ${a}::text || '.')`);
    }
    if (q.actor) parts.push(`lower(actor) = lower(${param(q.actor)}::text)`);
    if (q.target) parts.push(`lower(target) = lower(${param(q.target)}::text)`);
    const where = parts.length > 0 ? `WHERE ${parts.join(' AND ')}` : '';
    const rows = await this.db.read<AuditRow>(`SELECT ${AUDIT_COLUMNS} FROM audit_log ${where} ORDER BY id DESC LIMIT ${param(q.limit)}`, values);
    return rows.map(toAuditEntry);
  }

  async lastSignIns(names: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (names.length === 0) return out;
    const rows = await this.db.read<{ actor: string; time: number }>(
      `SELECT actor, max(time) AS time FROM audit_log WHERE action = 'session.signin' AND actor = ANY($1::text[]) GROUP BY actor`,
      [[...names]],
    );
    for (const r of rows) out.set(r.actor, Number(r.time));
    return out;
  }

  async purge(before: number, limit: number): Promise<number> {
    return changedRows(this.db, 'DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE time < $1 ORDER BY time LIMIT $2)', [before, limit]);
  }
}
