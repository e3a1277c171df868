/**
 * PostgreSQL for the tests. `VTS_TEST_DATABASE=postgres://…` runs the store tests and the
 * server-level tests (test/store/helpers.ts `freshStore`, test/support/server.ts
 * `startTestServer`) on PostgreSQL instead of SQLite: each test gets a schema of its own in that
 * database (the URL's search_path names it), dropped when the test ends. The PostgreSQL-only
 * tests (test/store/postgres-*.test.ts) use that database too, or, when the variable is unset,
 * the `test` database of this machine's server.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The database that VTS_TEST_DATABASE selects for the store and server tests; undefined: SQLite. */
export const TEST_DATABASE: string | undefined = process.env.VTS_TEST_DATABASE || undefined;

/** The database of the PostgreSQL-only tests. */
export const PG_TEST_URL = TEST_DATABASE ?? 'postgres://root@127.0.0.1:5432/test';

/** Why a test about the SQLite file itself does not run on PostgreSQL (its `skip` option), or false. */
export const SQLITE_ONLY: string | false = TEST_DATABASE ? 'about the SQLite file (VTS_TEST_DATABASE selects PostgreSQL)' : false;

/** `url` with its search_path set to `schema` (the `options` parameter pg passes to the server). */
export function withSchema(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

/** Runs one statement on the database of `url` (its own connection, closed after). */
export async function adminQuery(sql: string, url = PG_TEST_URL): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

export interface TestSchema {
  /** The schema's name (created by the first store that opens it). */
  schema: string;
  /** The database URL whose search_path is that schema. */
  url: string;
  /** Drops the schema with everything in it. */
  drop(): Promise<void>;
}

/** A schema name no other test uses, on `base` (default PG_TEST_URL). */
export function freshSchema(base = PG_TEST_URL): TestSchema {
  const schema = `vts_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  return {
    schema,
    url: withSchema(base, schema),
    drop: async () => {
      // a server killed just before may still have a backend ending its transaction on the
      // schema: PostgreSQL may then pick the drop as the victim of a deadlock; it goes through
      // once that backend is gone
      for (let attempt = 1; ; attempt++) {
        try {
          await adminQuery(`DROP SCHEMA IF EXISTS ${schema} CASCADE`, base);
          return;
        } catch (err) {
          if ((err as { code?: unknown }).code !== '40P01' || attempt >= 5) throw err;
          await new Promise((r) => setTimeout(r, 200 * attempt));
        }
      }
    },
  };
}
