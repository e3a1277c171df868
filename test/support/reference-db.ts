/**
 * A reference server's database for the `vts import` tests: a MariaDB database of its own
 * (MARIADB_URL), made with the reference schema written from
 * docs/protocol/http-api-v2.md §7 (test/fixtures/reference/ovms_server.sql) and dropped when the test ends.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { TestContext } from 'node:test';
import { createConnection, type Connection } from 'mysql2/promise';
import { MARIADB_URL } from './services.js';

const SCHEMA = readFileSync(new URL('../fixtures/reference/ovms_server.sql', import.meta.url), 'utf8');

export interface ReferenceDb {
  /** `mysql://root@127.0.0.1:3306/<database>`. */
  url: string;
  database: string;
  /** A connection to it, for filling and checking (closed at the end). */
  db: Connection;
}

/** A new database; with `schema` false it is left empty. */
export async function freshReferenceDb(t: TestContext, schema = true): Promise<ReferenceDb> {
  const database = `vts_ref_${randomBytes(5).toString('hex')}`;
  const admin = await createConnection({ uri: MARIADB_URL, multipleStatements: true });
  await admin.query(`CREATE DATABASE ${database} CHARACTER SET utf8`);
  const url = `${MARIADB_URL.replace(/\/+$/, '')}/${database}`;
  const db = await createConnection({ uri: url, multipleStatements: true, dateStrings: true });
  t.after(async () => {
    await db.end().catch(() => undefined);
    await admin.query(`DROP DATABASE IF EXISTS ${database}`);
    await admin.end();
  });
  if (schema) await db.query(SCHEMA);
  return { url, database, db };
}
