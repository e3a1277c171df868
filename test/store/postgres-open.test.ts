/**
 * The PostgreSQL store at its edges (src/store/postgres/): migrations on an empty and on a
 * populated schema, several processes opening one database at once, a schema written by a newer
 * vts, the search_path of the URL, and the one-line errors of an unreachable server, a missing
 * database or role and a schema without vts tables, none of which shows the password. Runs in the
 * plain test pass too, on VTS_TEST_DATABASE or this machine's `test` database.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { isVtsError } from '../../src/errors.js';
import { openStore } from '../../src/store/open.js';
import { PG_SCHEMA_VERSION } from '../../src/store/postgres/pg-schema.js';
import { PG_TEST_URL, adminQuery, freshSchema, withSchema, type TestSchema } from '../support/postgres.js';
import { needs, postgres, requireServices } from '../support/services.js';
import { seed } from './helpers.js';

const skip = await needs(postgres);

async function schemaFor(t: TestContext): Promise<TestSchema> {
  await requireServices(postgres);
  const s = freshSchema();
  t.after(() => s.drop());
  return s;
}

const tables = async (schema: string): Promise<string[]> =>
  (
    await adminQuery(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = '${schema}' ORDER BY table_name`,
    )
  ).rows.map((r: { table_name: string }) => r.table_name);

test('an empty schema gets the whole schema, in the schema the URL names; a populated one keeps its data and is not migrated again', { skip }, async (t) => {
  const s = await schemaFor(t);
  const created: string[] = [];
  const store = await openStore('/nonexistent', { database: s.url, onCreated: (where) => created.push(where) });
  const { owner } = await seed(store);
  store.putCarMessage('DEMO1', { code: 'S', data: 'kept', time: 5, paranoid: false, ptoken: '' });
  await store.close();
  assert.deepEqual(created, [`postgres://root@127.0.0.1:5432/${new URL(PG_TEST_URL).pathname.slice(1)} (schema ${s.schema})`]);
  assert.deepEqual(await tables(s.schema), [
    'abrp_links', 'account_tokens', 'alert_rules', 'alert_settings', 'alert_state', 'api_tokens', 'audit_log', 'auth_challenges', 'autoprovision', 'car_messages', 'command_audit', 'historical', 'historical_all', 'import_origins',
    'invites', 'notify_targets', 'owners', 'passkeys', 'places', 'push_attempts', 'push_buckets', 'push_deliveries', 'push_notifications', 'push_subscriptions', 'recovery_codes',
    'session_details', 'session_trackers', 'sessions', 'shares', 'utilisation', 'vehicles', 'vts_meta', 'vts_schema_version',
  ]);
  assert.equal((await adminQuery(`SELECT version FROM ${s.schema}.vts_schema_version`)).rows[0].version, PG_SCHEMA_VERSION);

  const again = await openStore('/nonexistent', { database: s.url, create: false, onCreated: (where) => created.push(where) });
  t.after(() => again.close().catch(() => undefined));
  assert.equal(created.length, 1, 'not created again');
  assert.equal((await again.getOwnerByName('DEMO'))?.id, owner.id);
  assert.equal((await again.getCarMessages('DEMO1'))[0]?.data, 'kept');
});

test('a schema written by a newer vts is refused', { skip }, async (t) => {
  const s = await schemaFor(t);
  await (await openStore('', { database: s.url })).close();
  await adminQuery(`UPDATE ${s.schema}.vts_schema_version SET version = ${PG_SCHEMA_VERSION + 1}`);
  await assert.rejects(openStore('', { database: s.url }), (e) => isVtsError(e, 'VTS_ERR_STORE_SCHEMA'));
});

test('several processes opening one new database at once migrate it once', { skip }, async (t) => {
  const s = await schemaFor(t);
  const open = new URL('../../src/store/open.ts', import.meta.url).pathname;
  const script = `const { openStore } = await import(${JSON.stringify(open)});
    const store = await openStore('', { database: process.env.URL });
    await store.addOwner('user' + process.env.N, 'hash', '*');
    await store.close();`;
  const run = (n: number): Promise<string> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        env: { ...process.env, URL: s.url, N: String(n) },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve('ok') : reject(new Error(`process ${n} exited ${code}: ${err}`))));
    });
  assert.deepEqual(await Promise.all([1, 2, 3, 4].map(run)), ['ok', 'ok', 'ok', 'ok']);
  const store = await openStore('', { database: s.url, create: false });
  t.after(() => store.close());
  assert.deepEqual((await store.listOwners()).map((o) => o.name), ['user1', 'user2', 'user3', 'user4']);
  assert.equal((await adminQuery(`SELECT count(*)::int AS n FROM ${s.schema}.vts_schema_version`)).rows[0].n, 1);
});

/** The one-line error of opening `url`, checked for the things every such line must have. */
async function openError(url: string, opts: { create?: boolean } = {}): Promise<Error & { code: string }> {
  try {
    const store = await openStore('', { database: url, ...opts });
    await store.close();
  } catch (err) {
    assert.ok(isVtsError(err), String(err));
    assert.ok(!err.message.includes('\n'), 'one line');
    assert.ok(!err.message.includes('s3cret-pw'), `no password: ${err.message}`);
    return err as Error & { code: string };
  }
  assert.fail(`opening ${url} did not fail`);
}

test('errors at the edge: one line that names the database and what to do, never the password', { skip }, async (t) => {
  await requireServices(postgres);
  const base = new URL(PG_TEST_URL);
  const at = (change: (u: URL) => void): string => {
    const u = new URL(base);
    u.password = 's3cret-pw';
    change(u);
    return u.toString();
  };

  const down = await openError(at((u) => (u.port = '1')));
  assert.equal(down.code, 'VTS_ERR_DATABASE');
  assert.match(down.message, /^cannot reach PostgreSQL at 127\.0\.0\.1:1 for postgres:\/\/root@127\.0\.0\.1:1\/\w+: .*ECONNREFUSED.*: start PostgreSQL there, or check --database \(or VTS_DATABASE\)$/);

  const nodb = await openError(at((u) => (u.pathname = '/vts_no_such_database')));
  assert.equal(nodb.code, 'VTS_ERR_DATABASE');
  assert.match(nodb.message, /^the database vts_no_such_database does not exist on PostgreSQL at 127\.0\.0\.1:5432 .*: create it \(createdb vts_no_such_database\), or check --database \(or VTS_DATABASE\)$/);

  const norole = await openError(at((u) => (u.username = 'vts_no_such_role')));
  assert.equal(norole.code, 'VTS_ERR_DATABASE');
  assert.match(norole.message, /refused the login of user vts_no_such_role for postgres:\/\/vts_no_such_role@127\.0\.0\.1:5432\/.*: check --database \(or VTS_DATABASE\) \(user and password\)$/);

  const s = freshSchema();
  t.after(() => s.drop());
  const empty = await openError(withSchema(at(() => undefined), s.schema), { create: false });
  assert.equal(empty.code, 'VTS_ERR_NO_DATABASE');
  assert.match(empty.message, new RegExp(`^no vts database at postgres://root@127\\.0\\.0\\.1:5432/\\w+: the schema ${s.schema} does not exist: check --database \\(or VTS_DATABASE\\), or create one with 'vts user add NAME --password -' or 'vts serve'$`));

  const other = await openError('mysql://root:s3cret-pw@127.0.0.1/test');
  assert.equal(other.code, 'VTS_ERR_CONFIG');
  assert.ok(!other.message.includes('mysql'), 'the URL is not echoed');
});
