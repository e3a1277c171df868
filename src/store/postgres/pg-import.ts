/**
 * What `vts import` writes (ImportStore, src/store/import-store.ts) on PostgreSQL: direct writes
 * of the PgStore, a batch of rows compared and written with one statement each (arrays through
 * unnest), in one transaction.
 */
import type { PoolClient } from 'pg';
import { nowSeconds } from '../rows.js';
import { VtsError } from '../../errors.js';
import {
  IMPORT_TABLES,
  columnsOf,
  outcomeOf,
  type ImportColumn,
  type ImportOrigin,
  type ImportStore,
  type ImportTable,
  type ImportTableSpec,
  type ImportValue,
  type ImportedOwner,
  type ImportedOwnerRow,
  type ImportedVehicle,
  type OriginKind,
  type RowOutcome,
} from '../import-store.js';
import type { PgAccess } from './pg-connection.js';
import { isUniqueViolation } from './pg-errors.js';


const PUT_ORIGIN = `INSERT INTO import_origins (kind, source_key, target_key, fingerprint, secret)
  SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[])
  ON CONFLICT (kind, source_key) DO UPDATE SET target_key = excluded.target_key,
    fingerprint = excluded.fingerprint, secret = excluded.secret`;

/** `unnest($1::text[], $2::bigint[], …) AS i(a, b, …)` over `columns`, from parameter `first`. */
function unnest(columns: readonly ImportColumn[], first: number): string {
  const arrays = columns.map((c, i) => `$${first + i}::${c.type}[]`).join(', ');
  return `unnest(${arrays}) WITH ORDINALITY AS i(${columns.map((c) => c.name).join(', ')}, ord)`;
}

/** The table's key columns equal to the input's (t: the table, i: the input). */
function keyMatch(spec: ImportTableSpec): string {
  return spec.key.map((c) => (c.name === spec.folded ? `lower(t.${c.name}) = lower(i.${c.name})` : `t.${c.name} = i.${c.name}`)).join(' AND ');
}

/** One array per column of `rows` (as given), for unnest. */
function arrays(rows: readonly (readonly ImportValue[])[], from: number, count: number): ImportValue[][] {
  return Array.from({ length: count }, (_, j) => rows.map((r) => r[from + j] ?? null));
}

export class PgImportStore implements ImportStore {
  constructor(private readonly pg: PgAccess) {}

  async origins(kind: OriginKind): Promise<ImportOrigin[]> {
    const rows = await this.pg.read<{ source_key: string; target_key: string; fingerprint: string; secret: string }>(
      'SELECT source_key, target_key, fingerprint, secret FROM import_origins WHERE kind = $1',
      [kind],
    );
    return rows.map((r) => ({ sourceKey: r.source_key, targetKey: r.target_key, fingerprint: r.fingerprint, secret: r.secret }));
  }

  async owner(id: number): Promise<ImportedOwnerRow | undefined> {
    const r = (await this.pg.read<{ id: number; name: string; mail: string; password_hash: string }>('SELECT id, name, mail, password_hash FROM owners WHERE id = $1', [id]))[0];
    return r && { id: r.id, name: r.name, mail: r.mail, passwordHash: r.password_hash };
  }

  async putOwner(o: ImportedOwner, origin: Omit<ImportOrigin, 'targetKey'>): Promise<number> {
    try {
      return await this.pg.transaction(async (c) => {
        let id = o.id;
        if (id === undefined) {
          const { rows } = await c.query<{ id: number }>(
            'INSERT INTO owners (name, mail, password_hash, rights, created) VALUES ($1, $2, $3, $4, $5) RETURNING id',
            [o.name, o.mail, o.passwordHash ?? '!', o.rights, nowSeconds()],
          );
          id = Number(rows[0]!.id);
        } else {
          await c.query('UPDATE owners SET name = $1, mail = $2, password_hash = coalesce($3, password_hash) WHERE id = $4', [o.name, o.mail, o.passwordHash ?? null, id]);
        }
        await this.origin(c, 'owner', [{ ...origin, targetKey: String(id) }]);
        return id;
      });
    } catch (err) {
      const cause = (err as { cause?: unknown }).cause ?? err;
      if (isUniqueViolation(err) || isUniqueViolation(cause)) throw new VtsError('VTS_ERR_DUPLICATE_USER', o.name);
      throw err;
    }
  }

  async putVehicle(v: ImportedVehicle, origin: Omit<ImportOrigin, 'targetKey'>): Promise<void> {
    await this.pg.transaction(async (c) => {
      const owner = await c.query('SELECT 1 FROM owners WHERE id = $1', [v.ownerId]);
      if (owner.rowCount === 0) throw new VtsError('VTS_ERR_UNKNOWN_USER', `owner id ${v.ownerId}`);
      await c.query(
        `INSERT INTO vehicles (id, owner_id, name, car_password, type, paranoid_token, last_update, created)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (id) DO UPDATE SET owner_id = excluded.owner_id, name = excluded.name,
           car_password = excluded.car_password, type = excluded.type,
           paranoid_token = excluded.paranoid_token, last_update = excluded.last_update`,
        [v.id, v.ownerId, v.name, v.carPassword, v.type, v.paranoidToken, v.lastUpdate, nowSeconds()],
      );
      await this.origin(c, 'vehicle', [{ ...origin, targetKey: v.id }]);
    });
  }

  async putRows(table: ImportTable, rows: readonly (readonly ImportValue[])[], dryRun: boolean): Promise<RowOutcome[]> {
    if (rows.length === 0) return [];
    const spec = IMPORT_TABLES[table];
    const nKey = spec.key.length;
    const found = `SELECT i.ord, ${spec.values.map((c) => `t.${c.name}`).join(', ')}
      FROM ${unnest(spec.key, 1)} JOIN ${table} t ON ${keyMatch(spec)}`;
    const decide = (stored: Record<string, unknown>[]): RowOutcome[] => {
      const byRow = new Map(stored.map((r) => [Number(r.ord) - 1, r]));
      return rows.map((row, i) => outcomeOf(spec, row, byRow.get(i)));
    };
    const keyArrays = arrays(rows, 0, nKey);
    if (dryRun) return decide(await this.pg.read<Record<string, unknown>>(found, keyArrays));
    return this.pg.transaction(async (c) => {
      const outcomes = decide((await c.query<Record<string, unknown>>(found, keyArrays)).rows);
      const added = rows.filter((_, i) => outcomes[i] === 'added');
      const updated = rows.filter((_, i) => outcomes[i] === 'updated');
      const all = columnsOf(spec);
      if (added.length > 0) {
        const names = all.map((c) => c.name).join(', ');
        await c.query(`INSERT INTO ${table} (${names}) SELECT ${names} FROM ${unnest(all, 1)}`, arrays(added, 0, all.length));
      }
      if (updated.length > 0) {
        const cols = [...spec.key, ...spec.values];
        await c.query(
          `UPDATE ${table} t SET ${spec.values.map((v) => `${v.name} = i.${v.name}`).join(', ')} FROM ${unnest(cols, 1)} WHERE ${keyMatch(spec)}`,
          arrays(updated, 0, cols.length),
        );
      }
      return outcomes;
    });
  }

  async putOrigins(kind: OriginKind, origins: readonly ImportOrigin[]): Promise<void> {
    if (origins.length === 0) return;
    await this.pg.transaction((c) => this.origin(c, kind, origins));
  }

  async removeImported(kind: OriginKind, table: ImportTable, rows: readonly { sourceKey: string; key: readonly ImportValue[] }[]): Promise<number> {
    if (rows.length === 0) return 0;
    const spec = IMPORT_TABLES[table];
    return this.pg.transaction(async (c) => {
      const keys = rows.map((r) => r.key);
      const { rowCount } = await c.query(`DELETE FROM ${table} t USING ${unnest(spec.key, 1)} WHERE ${keyMatch(spec)}`, arrays(keys, 0, spec.key.length));
      await c.query('DELETE FROM import_origins WHERE kind = $1 AND source_key = ANY($2::text[])', [kind, rows.map((r) => r.sourceKey)]);
      return rowCount ?? 0;
    });
  }

  private async origin(c: PoolClient, kind: OriginKind, origins: readonly ImportOrigin[]): Promise<void> {
    await c.query(PUT_ORIGIN, [kind, origins.map((o) => o.sourceKey), origins.map((o) => o.targetKey), origins.map((o) => o.fingerprint), origins.map((o) => o.secret)]);
  }
}
