/**
 * Reading a reference server's database (src/import/reference-db.ts) from the real MariaDB of
 * this machine: the URL, the schema check, counts, rows paged in key order with bounded batches,
 * and one clear line for each way it can fail (unreachable, wrong password, no such database, not
 * a reference schema, a column missing).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isVtsError } from '../../src/errors.js';
import { openReference, sourceOptions } from '../../src/import/reference-db.js';
import { freshReferenceDb } from '../support/reference-db.js';
import { MARIADB_URL, mariadb, needs, requireServices } from '../support/services.js';

const skip = await needs(mariadb);

test('the URL: TCP or a socket, shown without the password; malformed ones say what to give', () => {
  const tcp = sourceOptions('mysql://ovms:s3cret@db.example:3307/ovms');
  assert.equal(tcp.target.shown, 'mysql://ovms@db.example:3307/ovms');
  assert.deepEqual([tcp.options.user, tcp.options.password, tcp.options.host, tcp.options.port, tcp.options.database], ['ovms', 's3cret', 'db.example', 3307, 'ovms']);
  const sock = sourceOptions('mysql://ovms:s3cret@localhost/ovms?socket=/run/mysqld/mysqld.sock');
  assert.equal(sock.options.socketPath, '/run/mysqld/mysqld.sock');
  assert.equal(sock.target.shown, 'mysql://ovms@/ovms?socket=/run/mysqld/mysqld.sock');
  for (const [url, why] of [
    ['not a url', /not a URL/],
    ['postgres://x@h/db', /not a mysql:\/\/ URL \(postgres:\)/],
    ['mysql://ovms:s3cret@db.example:3306/', /no database in the URL/],
    ['mysql://ovms:s3cret%zz@db.example:3306/ovms', /a %-escape of the URL is not valid/],
  ] as const) {
    assert.throws(() => sourceOptions(url), (e: unknown) => isVtsError(e, 'VTS_ERR_CONFIG') && why.test(e.message) && !e.message.includes('s3cret'));
  }
});

test('a reference database: counts, and rows in key order, a bounded batch at a time, each once', { skip }, async (t) => {
  await requireServices(mariadb);
  const ref = await freshReferenceDb(t);
  const rows: unknown[][] = [];
  for (let k = 0; k < 2500; k++) rows.push([1, `CAR${k % 3}`, `2026-01-01 00:${String(Math.floor(k / 60) % 60).padStart(2, '0')}:${String(k % 60).padStart(2, '0')}`, `type-${k % 7}`, k % 5, `data ${k}`, '2027-01-01 00:00:00']);
  await ref.db.query('INSERT INTO ovms_historicalmessages (owner, vehicleid, h_timestamp, h_recordtype, h_recordnumber, h_data, h_expires) VALUES ?', [rows]);
  const source = await openReference(ref.url);
  t.after(() => source.close());
  assert.equal(source.target.shown, `mysql://root@127.0.0.1:3306/${ref.database}`);
  assert.equal(await source.count('ovms_historicalmessages'), 2500);
  assert.equal(await source.count('ovms_owners'), 0);

  const key = ['owner', 'vehicleid', 'h_recordtype', 'h_recordnumber', 'h_timestamp'];
  const seen: string[] = [];
  const sizes: number[] = [];
  for await (const batch of source.batches('ovms_historicalmessages', key, 1000)) {
    sizes.push(batch.length);
    for (const r of batch) seen.push(String(r.h_data));
  }
  assert.deepEqual(sizes, [1000, 1000, 500]);
  assert.equal(new Set(seen).size, 2500, 'each row once');
  const [ordered] = await ref.db.query(`SELECT h_data FROM ovms_historicalmessages ORDER BY ${key.join(', ')}`);
  assert.deepEqual(seen, (ordered as { h_data: string }[]).map((r) => r.h_data), 'in key order');
});

test('each way of failing is one line that says what to check, without the password', { skip }, async (t) => {
  await requireServices(mariadb);
  const fails = async (url: string, why: RegExp): Promise<void> => {
    await assert.rejects(openReference(url), (e: unknown) => {
      assert.ok(isVtsError(e, 'VTS_ERR_IMPORT_SOURCE'), String(e));
      assert.match(e.message, why);
      assert.ok(!e.message.includes('wr0ng'), e.message);
      return true;
    });
  };
  const base = new URL(MARIADB_URL);
  await fails('mysql://root@127.0.0.1:1/ovms', /^cannot reach MySQL\/MariaDB for mysql:\/\/root@127\.0\.0\.1:1\/ovms \(ECONNREFUSED\): check the URL/);
  await fails(`mysql://vts_nobody:wr0ng@${base.host}/test`, /refused the login of user vts_nobody .*: check the user and password/);
  await fails(`${MARIADB_URL.replace(/\/+$/, '')}/vts_no_such_database`, /there is no database vts_no_such_database at .*: check the database/);

  const empty = await freshReferenceDb(t, false);
  await fails(empty.url, /is not a reference server's database: it has none of its tables/);
  const partial = await freshReferenceDb(t);
  await partial.db.query('DROP TABLE ovms_notifies; ALTER TABLE ovms_cars DROP COLUMN carpass');
  await fails(partial.url, /is not a whole reference server's database: no table ovms_notifies/);
  await partial.db.query('CREATE TABLE ovms_notifies (owner int, vehicleid varchar(32), appid varchar(128), pushtype varchar(16), pushkeytype varchar(16), pushkeyvalue varchar(256), lastupdated datetime, active tinyint)');
  await fails(partial.url, /of the known schema: no column ovms_cars\.carpass$/);
});
