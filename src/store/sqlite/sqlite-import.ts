/**
 * What `vts import` writes (ImportStore, src/store/import-store.ts) on SQLite: direct writes, each
 * call one IMMEDIATE transaction (the server may be using the file meanwhile: its read caches see
 * the change through data_version).
 */
import type Database from 'better-sqlite3';
import { nowSeconds } from '../rows.js';
import { VtsError } from '../../errors.js';
import {
  IMPORT_TABLES,
  columnsOf,
  outcomeOf,
  sqliteValue,
  type ImportOrigin,
  type ImportStore,
  type ImportTable,
  type ImportValue,
  type ImportedOwner,
  type ImportedOwnerRow,
  type ImportedVehicle,
  type OriginKind,
  type RowOutcome,
} from '../import-store.js';

const sqliteCode = (err: unknown): unknown => (err as { code?: unknown } | null)?.code;

interface TableStatements {
  select: Database.Statement<unknown[], Record<string, unknown>>;
  insert: Database.Statement<unknown[]>;
  update: Database.Statement<unknown[]>;
  remove: Database.Statement<unknown[]>;
}

function tableStatements(db: Database.Database, table: ImportTable): TableStatements {
  const spec = IMPORT_TABLES[table];
  const where = spec.key.map((c) => `${c.name} = ?`).join(' AND ');
  const all = columnsOf(spec);
  return {
    select: db.prepare(`SELECT ${spec.values.map((c) => c.name).join(', ')} FROM ${table} WHERE ${where}`),
    insert: db.prepare(`INSERT INTO ${table} (${all.map((c) => c.name).join(', ')}) VALUES (${all.map(() => '?').join(', ')})`),
    update: db.prepare(`UPDATE ${table} SET ${spec.values.map((c) => `${c.name} = ?`).join(', ')} WHERE ${where}`),
    remove: db.prepare(`DELETE FROM ${table} WHERE ${where}`),
  };
}

export class SqliteImportStore implements ImportStore {
  private readonly tables = new Map<ImportTable, TableStatements>();
  private readonly s;

  /** `changed`: the store's read caches are out of date. */
  constructor(
    private readonly db: Database.Database,
    private readonly open: () => void,
    private readonly changed: () => void,
  ) {
    this.s = {
      origins: db.prepare<[string], { source_key: string; target_key: string; fingerprint: string; secret: string }>(
        'SELECT source_key, target_key, fingerprint, secret FROM import_origins WHERE kind = ?',
      ),
      putOrigin: db.prepare<[string, string, string, string, string]>(
        `INSERT INTO import_origins (kind, source_key, target_key, fingerprint, secret) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (kind, source_key) DO UPDATE SET target_key = excluded.target_key,
           fingerprint = excluded.fingerprint, secret = excluded.secret`,
      ),
      removeOrigin: db.prepare<[string, string]>('DELETE FROM import_origins WHERE kind = ? AND source_key = ?'),
      owner: db.prepare<[number], { id: number; name: string; mail: string; password_hash: string }>(
        'SELECT id, name, mail, password_hash FROM owners WHERE id = ?',
      ),
      addOwner: db.prepare<[string, string, string, string, number], { id: number }>(
        'INSERT INTO owners (name, mail, password_hash, rights, created) VALUES (?, ?, ?, ?, ?) RETURNING id',
      ),
      updateOwner: db.prepare<[string, string, number]>('UPDATE owners SET name = ?, mail = ? WHERE id = ?'),
      updateOwnerPassword: db.prepare<[string, number]>('UPDATE owners SET password_hash = ? WHERE id = ?'),
      ownerExists: db.prepare<[number], { id: number }>('SELECT id FROM owners WHERE id = ?'),
      putVehicle: db.prepare<[string, number, string, string, string, string, number | null, number]>(
        `INSERT INTO vehicles (id, owner_id, name, car_password, type, paranoid_token, last_update, created)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET owner_id = excluded.owner_id, name = excluded.name,
           car_password = excluded.car_password, type = excluded.type,
           paranoid_token = excluded.paranoid_token, last_update = excluded.last_update`,
      ),
    };
  }

  private statements(table: ImportTable): TableStatements {
    let t = this.tables.get(table);
    if (!t) {
      t = tableStatements(this.db, table);
      this.tables.set(table, t);
    }
    return t;
  }

  async origins(kind: OriginKind): Promise<ImportOrigin[]> {
    this.open();
    return this.s.origins.all(kind).map((r) => ({ sourceKey: r.source_key, targetKey: r.target_key, fingerprint: r.fingerprint, secret: r.secret }));
  }

  async owner(id: number): Promise<ImportedOwnerRow | undefined> {
    this.open();
    const r = this.s.owner.get(id);
    return r && { id: r.id, name: r.name, mail: r.mail, passwordHash: r.password_hash };
  }

  async putOwner(o: ImportedOwner, origin: Omit<ImportOrigin, 'targetKey'>): Promise<number> {
    this.open();
    const s = this.s;
    try {
      const id = this.db
        .transaction((): number => {
          let id = o.id;
          if (id === undefined) {
            id = s.addOwner.get(o.name, o.mail, o.passwordHash ?? '!', o.rights, nowSeconds())!.id;
          } else {
            s.updateOwner.run(o.name, o.mail, id);
            if (o.passwordHash !== undefined) s.updateOwnerPassword.run(o.passwordHash, id);
          }
          s.putOrigin.run('owner', origin.sourceKey, String(id), origin.fingerprint, origin.secret);
          return id;
        })
        .immediate();
      return id;
    } catch (err) {
      if (sqliteCode(err) === 'SQLITE_CONSTRAINT_UNIQUE') throw new VtsError('VTS_ERR_DUPLICATE_USER', o.name);
      throw err;
    } finally {
      this.changed();
    }
  }

  async putVehicle(v: ImportedVehicle, origin: Omit<ImportOrigin, 'targetKey'>): Promise<void> {
    this.open();
    const s = this.s;
    try {
      this.db
        .transaction(() => {
          if (!s.ownerExists.get(v.ownerId)) throw new VtsError('VTS_ERR_UNKNOWN_USER', `owner id ${v.ownerId}`);
          s.putVehicle.run(v.id, v.ownerId, v.name, v.carPassword, v.type, v.paranoidToken, v.lastUpdate, nowSeconds());
          s.putOrigin.run('vehicle', origin.sourceKey, v.id, origin.fingerprint, origin.secret);
        })
        .immediate();
    } finally {
      this.changed();
    }
  }

  async putRows(table: ImportTable, rows: readonly (readonly ImportValue[])[], dryRun: boolean): Promise<RowOutcome[]> {
    this.open();
    const spec = IMPORT_TABLES[table];
    const t = this.statements(table);
    const nKey = spec.key.length;
    const nValues = spec.values.length;
    const outcomes = this.db
      .transaction((): RowOutcome[] =>
        rows.map((row) => {
          const key = row.slice(0, nKey).map(sqliteValue);
          const outcome = outcomeOf(spec, row, t.select.get(...key));
          if (dryRun) return outcome;
          if (outcome === 'added') t.insert.run(...row.map(sqliteValue));
          else if (outcome === 'updated') t.update.run(...row.slice(nKey, nKey + nValues).map(sqliteValue), ...key);
          return outcome;
        }),
      )
      .immediate();
    if (!dryRun) this.changed();
    return outcomes;
  }

  async putOrigins(kind: OriginKind, origins: readonly ImportOrigin[]): Promise<void> {
    this.open();
    this.db
      .transaction(() => {
        for (const o of origins) this.s.putOrigin.run(kind, o.sourceKey, o.targetKey, o.fingerprint, o.secret);
      })
      .immediate();
  }

  async removeImported(kind: OriginKind, table: ImportTable, rows: readonly { sourceKey: string; key: readonly ImportValue[] }[]): Promise<number> {
    this.open();
    const t = this.statements(table);
    const removed = this.db
      .transaction((): number => {
        let n = 0;
        for (const r of rows) {
          n += t.remove.run(...r.key.map(sqliteValue)).changes;
          this.s.removeOrigin.run(kind, r.sourceKey);
        }
        return n;
      })
      .immediate();
    this.changed();
    return removed;
  }
}
