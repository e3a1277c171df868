/**
 * One write-behind batch (src/store/write-batch.ts) as PostgreSQL statements: the rows in one
 * statement of data-modifying CTEs over `unnest` arrays, so a batch is one round trip whatever
 * its size. A batch that also removes vehicles or changes paranoid tokens (rare) runs those first
 * in an explicit transaction with it.
 *
 * One statement may not touch a row twice (`ON CONFLICT DO UPDATE` refuses it), so the batch's
 * historical records, the car messages' own records included, are merged in JS first by the key
 * of the unique index: vehicle, type folded as `lower()` under "C" folds it, time, record number.
 * The later version wins, with the type spelt as the first (as two upserts in a row would).
 *
 * Durability: a non-durable batch commits with `synchronous_commit = off` (set for its own
 * transaction): the commit is in the server's hands, not yet on its disk, as SQLite's
 * synchronous=NORMAL: a crash of vts loses nothing committed, a crash of the database server or
 * its machine may lose its last moments. A durable batch commits with the session's setting
 * (`on` by default): on disk before the caller's promise resolves.
 */
import type { Pool, QueryConfig } from 'pg';
import type { WriteBatch } from '../write-batch.js';

const asciiLower = (s: string): string => s.replace(/[A-Z]+/g, (m) => m.toLowerCase());

interface HistoricalRow {
  v: string;
  type: string;
  n: number;
  t: number;
  d: string;
  e: number;
}

/** The batch's historical records, each key once (see above), messages' records first. */
function mergedHistorical(batch: WriteBatch): HistoricalRow[] {
  const rows = new Map<string, HistoricalRow>();
  const put = (v: string, type: string, n: number, t: number, d: string, e: number): void => {
    const key = `${v}\u0000${asciiLower(type)}\u0000${n}\u0000${t}`;
    const prev = rows.get(key);
    if (prev) {
      prev.d = d;
      prev.e = e;
    } else {
      rows.set(key, { v, type, n, t, d, e });
    }
  };
  for (const codes of batch.carMessages.values()) {
    for (const m of codes.values()) if (m.historyExpires > 0) put(m.vehicleId, m.code, 0, m.time, m.data, m.historyExpires);
  }
  for (const r of batch.historical.values()) put(r.vehicleId, r.type, r.recordNumber, r.time, r.data, r.expires);
  return [...rows.values()];
}

const ROWS_SQL = `
WITH sync AS (
  SELECT set_config('synchronous_commit', CASE WHEN $1::boolean THEN current_setting('synchronous_commit') ELSE 'off' END, true)
), msg AS (
  INSERT INTO car_messages AS c (vehicle_id, code, data, time, paranoid, ptoken, valid)
  SELECT m.v, m.c, m.d, m.t, m.p, m.pt, m.ok
    FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::boolean[], $7::text[], $8::boolean[]) AS m (v, c, d, t, p, pt, ok)
   WHERE EXISTS (SELECT 1 FROM vehicles WHERE id = m.v)
  ON CONFLICT (vehicle_id, code) DO UPDATE SET data = excluded.data, time = excluded.time,
    paranoid = excluded.paranoid, ptoken = excluded.ptoken, valid = excluded.valid
  RETURNING 1
), last AS (
  UPDATE vehicles v SET last_update = u.t FROM unnest($9::text[], $10::bigint[]) AS u (v, t) WHERE v.id = u.v
  RETURNING 1
), hist AS (
  INSERT INTO historical AS h (vehicle_id, type, record_number, time, data, expires)
  SELECT r.v, r.ty, r.n, r.t, r.d, r.e
    FROM unnest($11::text[], $12::text[], $13::bigint[], $14::bigint[], $15::text[], $16::bigint[]) AS r (v, ty, n, t, d, e)
   WHERE EXISTS (SELECT 1 FROM vehicles WHERE id = r.v)
  ON CONFLICT (vehicle_id, lower(type), time, record_number) DO UPDATE SET data = excluded.data, expires = excluded.expires
  RETURNING 1
), util AS (
  INSERT INTO utilisation AS u (vehicle_id, day, client_type, rx, tx)
  SELECT x.v, x.day, x.ct, x.rx, x.tx
    FROM unnest($17::text[], $18::bigint[], $19::text[], $20::bigint[], $21::bigint[]) AS x (v, day, ct, rx, tx)
   WHERE EXISTS (SELECT 1 FROM vehicles WHERE id = x.v)
  ON CONFLICT (vehicle_id, day, client_type) DO UPDATE SET rx = u.rx + excluded.rx, tx = u.tx + excluded.tx
  RETURNING 1
), tok AS (
  UPDATE api_tokens a SET last_used = greatest(coalesce(a.last_used, 0), x.t)
    FROM unnest($22::bigint[], $23::text[], $24::bigint[]) AS x (o, h, t)
   WHERE a.owner_id = x.o AND a.token_hash = x.h
  RETURNING 1
)
SELECT (SELECT count(*) FROM sync) AS sync`;

/** The rows of the batch as one statement (prepared once per connection). */
export function rowsStatement(batch: WriteBatch): QueryConfig {
  const m = { v: [] as string[], c: [] as string[], d: [] as string[], t: [] as number[], p: [] as boolean[], pt: [] as string[], ok: [] as boolean[] };
  for (const codes of batch.carMessages.values()) {
    for (const x of codes.values()) {
      m.v.push(x.vehicleId);
      m.c.push(x.code);
      m.d.push(x.data);
      m.t.push(x.time);
      m.p.push(x.paranoid);
      m.pt.push(x.ptoken);
      m.ok.push(x.valid);
    }
  }
  const h = mergedHistorical(batch);
  const u = [...batch.utilisation.values()];
  const k = [...batch.tokenTouches.values()];
  return {
    name: 'vts_batch',
    text: ROWS_SQL,
    values: [
      batch.durable,
      m.v, m.c, m.d, m.t, m.p, m.pt, m.ok,
      [...batch.lastUpdates.keys()], [...batch.lastUpdates.values()],
      h.map((r) => r.v), h.map((r) => r.type), h.map((r) => r.n), h.map((r) => r.t), h.map((r) => r.d), h.map((r) => r.e),
      u.map((d) => d.vehicleId), u.map((d) => d.day), u.map((d) => d.clientType), u.map((d) => d.rx), u.map((d) => d.tx),
      k.map((x) => x.ownerId), k.map((x) => x.tokenHash), k.map((x) => x.time),
    ],
  };
}

/**
 * Commits the batch: one statement, or, when it removes vehicles or changes paranoid tokens,
 * those first and then the rows in one transaction (so the rows put after a removal find no
 * vehicle, and those put after a token change are not invalidated by it).
 */
export async function commitBatch(pool: Pool, batch: WriteBatch): Promise<void> {
  if (batch.removals.size === 0 && batch.paranoidTokens.size === 0) {
    await pool.query(rowsStatement(batch));
    return;
  }
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    try {
      if (batch.removals.size > 0) {
        const gone = await client.query<{ id: string }>('DELETE FROM vehicles WHERE id = ANY($1::text[]) RETURNING id', [[...batch.removals.keys()]]);
        const removed = new Set(gone.rows.map((r) => r.id));
        for (const [vid, removal] of batch.removals) removal.removed = removed.has(vid);
      }
      if (batch.paranoidTokens.size > 0) {
        const vids: string[] = [];
        const tokens: string[] = [];
        for (const [vid, list] of batch.paranoidTokens) {
          for (const token of list) {
            vids.push(vid);
            tokens.push(token);
          }
        }
        // a stored paranoid message becomes invalid when any of the new tokens differs from its own
        await client.query(
          `UPDATE car_messages c SET valid = false
            WHERE c.vehicle_id = ANY($1::text[]) AND c.paranoid AND c.valid
              AND EXISTS (SELECT 1 FROM unnest($1::text[], $2::text[]) AS x (v, t) WHERE x.v = c.vehicle_id AND x.t <> c.ptoken)`,
          [vids, tokens],
        );
        const last = [...batch.paranoidTokens].map(([vid, list]) => [vid, list[list.length - 1]!] as const);
        await client.query(
          'UPDATE vehicles v SET paranoid_token = x.t FROM unnest($1::text[], $2::text[]) AS x (v, t) WHERE v.id = x.v',
          [last.map((x) => x[0]), last.map((x) => x[1])],
        );
      }
      await client.query(rowsStatement(batch));
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK').catch((rollbackErr: Error) => (broken = rollbackErr));
      throw err;
    }
  } finally {
    client.release(broken);
  }
}
