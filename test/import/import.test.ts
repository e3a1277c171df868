/**
 * `vts import` end to end: a reference database on the real MariaDB of this machine (the schema
 * of docs/protocol/http-api-v2.md §7, test/support/reference-data.ts for the rows) is imported by the real
 * command into the database of a running vts (SQLite, or PostgreSQL with VTS_TEST_DATABASE).
 * Then every user logs in with the password they had, every token works, each car logs in over
 * the MP with its car password, the record endpoints answer the reference's bodies for the same
 * rows, and the subscriptions are listed. Run again, nothing changes; after changes at the source,
 * exactly those come over.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { MpClient } from '../../src/mp-client/mp-client.js';
import { vts } from '../cli/admin-helpers.js';
import { send, withoutTimes } from '../http/helpers.js';
import { eventually } from '../mp/helpers.js';
import { freshReferenceDb, type ReferenceDb } from '../support/reference-db.js';
import { DRUPAL_HASH, REF, fillReference } from '../support/reference-data.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { mariadb, needs, requireServices } from '../support/services.js';
import { formatUtc } from '../../src/core/time.js';

const skip = await needs(mariadb);

interface Setup {
  ref: ReferenceDb;
  h: TestServer;
  now: number;
  importArgs: (...more: string[]) => string[];
  get(path: string): Promise<{ status: number; body: string }>;
}

async function setup(t: TestContext): Promise<Setup> {
  await requireServices(mariadb);
  const now = Math.floor(Date.now() / 1000);
  const ref = await freshReferenceDb(t);
  await fillReference(ref.db, now);
  const h = await startTestServer({ rateLimit: { burst: 0 } });
  t.after(() => h.close());
  return {
    ref,
    h,
    now,
    importArgs: (...more) => ['import', ref.url, '--data-dir', h.dataDir, ...(h.database ? ['--database', h.database] : []), ...more],
    get: (path) => send(h.server.ports.http!, path),
  };
}

const q = (user: string, password: string): string => `username=${encodeURIComponent(user)}&password=${encodeURIComponent(password)}`;

/** The summary line of a table: read, added, updated, unchanged, skipped, removed. */
function counts(stdout: string, table: string): number[] {
  const line = stdout.split('\n').find((l) => l.startsWith(`${table} `));
  assert.ok(line, `a summary line for ${table} in:\n${stdout}`);
  return line.trim().split(/\s+/).slice(1).map((v) => Number(v.replace(/,/g, '')));
}

test('imported: old passwords (Drupal hash and plain text), tokens, car passwords over the MP, the reference bodies, history, subscriptions', { skip }, async (t) => {
  const s = await setup(t);
  const r = await vts(s.importArgs());
  // rows that break vts's rules are printed and skipped, the rest is imported: exit 2
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /skipped a row of ovms_owners: user name "eve with space" is not 1-60 characters/);
  assert.match(r.stderr, /skipped a row of ovms_cars: vehicle id "THIS-VEHICLE-ID-IS-FAR-TOO-LONG-FOR-VTS" is longer than 32 characters/);
  assert.match(r.stderr, /skipped a row of ovms_cars: the car password of SPACEPW cannot be stored/);
  assert.match(r.stderr, /skipped a row of ovms_apitokens: a token of owner 2 is not 64 hex digits/);
  assert.match(r.stderr, /vts: 4 rows were not imported/);
  const cars = 3 + REF.recordCases().length;
  assert.deepEqual(counts(r.stdout, 'ovms_owners'), [5, 2, 0, 0, 3, 0]);
  assert.deepEqual(counts(r.stdout, 'ovms_cars'), [cars + 4, cars, 0, 0, 4, 0]);
  assert.deepEqual(counts(r.stdout, 'ovms_historicalmessages'), [7, 4, 0, 0, 3, 0]);
  assert.deepEqual(counts(r.stdout, 'ovms_notifies'), [2, 2, 0, 0, 0, 0]);
  assert.deepEqual(counts(r.stdout, 'ovms_apitokens'), [3, 2, 0, 0, 1, 0]);
  assert.deepEqual(counts(r.stdout, 'ovms_autoprovision'), [2, 1, 0, 0, 1, 0]);
  assert.match(r.stdout, /ovms_historicalmessages: 1 expired/);
  assert.match(r.stdout, /ovms_owners: 1 not active/);

  // users: the Drupal hash checks, and becomes vts's own at the first login; plain text was hashed
  const store = s.h.server.store;
  assert.equal((await store.getOwnerByName('alice'))?.passwordHash, DRUPAL_HASH);
  assert.match((await store.getOwnerByName('bob'))!.passwordHash, /^scrypt\$/);
  assert.equal((await s.get(`/api/vehicles?${q('alice', 'wrong')}`)).status, 401);
  assert.equal((await s.get(`/api/vehicles?${q('alice', REF.alice.password)}`)).status, 200);
  await eventually(async () => (await store.getOwnerByName('alice'))!.passwordHash.startsWith('scrypt$') || undefined, "alice's scrypt hash");
  assert.equal((await s.get(`/api/vehicles?${q('alice', REF.alice.password)}`)).status, 200, 'alice again, after the rehash');
  assert.equal((await s.get(`/api/vehicles?${q('bob', REF.bob.password)}`)).status, 200);
  for (const [user, password] of [['carol', 'carols-pass'], ['dave', 'daves-pass'], ['bob', DRUPAL_HASH]]) {
    assert.equal((await s.get(`/api/vehicles?${q(user!, password!)}`)).status, 401, user);
  }

  // tokens: as given (any case), with their permits
  assert.equal((await s.get(`/api/vehicles?${q('alice', REF.aliceToken)}`)).status, 200);
  assert.equal((await s.get(`/api/vehicles?${q('bob', REF.bobToken)}`)).status, 200);
  assert.equal((await s.get(`/api/vehicles?${q('bob', REF.bobToken.toLowerCase())}`)).status, 200);
  assert.equal((await s.get(`/api/cookie?${q('bob', REF.bobToken)}`)).status, 403, "bob's token has no 'session' right");
  assert.equal((await s.get(`/api/vehicles?${q('bob', REF.aliceToken)}`)).status, 401, "alice's token is not bob's");

  // cars: scheme-0 logins with the car password they had (ids compare case-insensitively)
  for (const [id, car] of Object.entries(REF.cars)) {
    if ('type' in car) continue;
    const c = await MpClient.connect({ host: '127.0.0.1', port: s.h.mpPort, clientType: 'C', vehicleId: id.toLowerCase(), scheme: 0, password: car.password });
    assert.equal((await c.next()).code, 'Z', id);
    await c.close();
  }
  await assert.rejects(MpClient.connect({ host: '127.0.0.1', port: s.h.mpPort, clientType: 'C', vehicleId: 'BOB1', scheme: 0, password: 'not-it' }));

  // the record endpoints: the reference's bodies for the same rows (its transcripts)
  const auth = q('alice', REF.alice.password);
  for (const { vehicle, c } of REF.recordCases()) {
    const res = await s.get(`/api/${c.endpoint}/${vehicle}?${auth}`);
    assert.equal(res.status, c.status, c.name);
    assert.equal(withoutTimes(res.body), withoutTimes(c.body), c.name);
    const times = [...c.body.matchAll(/"m_msgtime_(\w)":"([^"]+)"/g)].map((m) => `${m[1]}=${m[2]}`);
    for (const time of times) assert.ok(res.body.includes(`"m_msgtime_${time.replace('=', '":"')}"`), `${c.name}: the time of the message as stored there (${time})`);
  }

  // history: the records that have not expired, as the reference lists them
  const summary = JSON.parse((await s.get(`/api/historical/ALICE1?${auth}`)).body) as Record<string, unknown>[];
  const byType = new Map(summary.map((row) => [String(row.h_recordtype), row]));
  assert.deepEqual([...byType.keys()].sort(), ['*-LOG-Trip', '*-Log-Notification']);
  const trip = byType.get('*-LOG-Trip')!;
  assert.deepEqual([Number(trip.distinctrecs), Number(trip.totalrecs)], [2, 2]);
  assert.equal(Number(trip.totalsize), '*-LOG-Trip'.length * 2 + '12.5,3.2,1'.length + '7.5,1.2,0'.length + 'ALICE1'.length * 2 + 40);
  const notes = byType.get('*-Log-Notification')!;
  assert.deepEqual([Number(notes.distinctrecs), Number(notes.totalrecs), notes.first, notes.last], [1, 2, formatUtc(s.now - 7200), formatUtc(s.now - 3600)]);
  const trips = JSON.parse((await s.get(`/api/historical/ALICE1/*-LOG-Trip?${auth}`)).body) as Record<string, unknown>[];
  assert.deepEqual(
    trips.map((x) => [x.h_data, Number(x.h_recordnumber), x.h_timestamp]),
    [
      ['12.5,3.2,1', 1, formatUtc(s.now - 3600)],
      ['7.5,1.2,0', 2, formatUtc(s.now - 3600)],
    ],
  );

  // the latest messages with their paranoid flag and token; the vehicle's fields
  const messages = await store.getCarMessages('ALICE1', true);
  const d = messages.find((m) => m.code === 'D');
  assert.deepEqual(d && [d.data, d.paranoid, d.ptoken, d.time], ['cGFyYW5vaWQ=', true, 'tok1', s.now - 500]);
  const alice1 = await store.getVehicle('ALICE1');
  assert.deepEqual(alice1 && [alice1.ownerName, alice1.name, alice1.type, alice1.lastUpdate], ['alice', 'Alice Leaf', 'CAR', s.now - 600]);
  assert.equal((await store.getVehicle('BOBSRV'))?.type, 'SERVER');

  // subscriptions: listed to their owner
  const subs = JSON.parse((await s.get(`/api/push/subscriptions/ALICE1?${auth}`)).body) as Record<string, unknown>[];
  assert.ok(
    subs.some((x) => JSON.stringify(x).includes('ios-app-1') && JSON.stringify(x).includes('apns')),
    JSON.stringify(subs),
  );
  const aliceId = (await store.getOwnerByName('alice'))!.id;
  assert.deepEqual(
    (await store.listPushSubscriptions(aliceId, 'ALICE1')).map((x) => [x.appId, x.pushType, x.pushKeyType, x.pushKeyValue, x.lastUpdated, x.active]),
    [['ios-app-1', 'apns', 'production', 'f'.repeat(64), s.now - 3600, true]],
  );
  assert.deepEqual(await store.getAutoProvision('VIN0000000000001'), {
    key: 'VIN0000000000001',
    serverToken: 'stoken1',
    serverDigest: 'c2RpZ2VzdA==',
    message: 'bWVzc2FnZQ==',
    ownerId: aliceId,
  });
  assert.equal(await store.getAutoProvision('VIN0000000000002'), undefined);
});

test('imported again: nothing changes; after changes at the source exactly those come over; --dry-run writes nothing', { skip }, async (t) => {
  const s = await setup(t);
  assert.equal((await vts(s.importArgs())).code, 2);
  const again = await vts(s.importArgs());
  for (const table of ['ovms_owners', 'ovms_cars', 'ovms_carmessages', 'ovms_historicalmessages', 'ovms_notifies', 'ovms_apitokens', 'ovms_autoprovision']) {
    const [, added, updated, , , removed] = counts(again.stdout, table);
    assert.deepEqual([added, updated, removed], [0, 0, 0], `${table} the second time`);
  }
  // a login that rehashed alice's Drupal hash is vts's business: the next import keeps it
  assert.equal((await s.get(`/api/vehicles?${q('alice', REF.alice.password)}`)).status, 200);
  await eventually(async () => (await s.h.server.store.getOwnerByName('alice'))!.passwordHash.startsWith('scrypt$') || undefined, "alice's scrypt hash");

  const db = s.ref.db;
  await db.query("UPDATE ovms_owners SET pass = 'bobs-new-pass' WHERE owner = 2");
  await db.query("INSERT INTO ovms_owners (owner, name, mail, pass, status) VALUES (7, 'frank', 'f@example.com', 'franks-pass', 1)");
  await db.query("INSERT INTO ovms_cars (vehicleid, owner, carpass, v_lastupdate) VALUES ('FRANK1', 7, 'frank-car', '2026-01-01 00:00:00')");
  await db.query("UPDATE ovms_cars SET carpass = 'bob-new-car-pw' WHERE vehicleid = 'BOB1'");
  await db.query(`UPDATE ovms_carmessages SET m_msg = '81,K,220,70,charging,standard,280,270', m_msgtime = '${formatUtc(s.now - 10)}' WHERE vehicleid = 'ALICE1' AND m_code = 'S'`);
  await db.query(`INSERT INTO ovms_historicalmessages (owner, vehicleid, h_timestamp, h_recordtype, h_recordnumber, h_data, h_expires) VALUES (1, 'ALICE1', '${formatUtc(s.now - 5)}', '*-Log-Notification', 0, 'Doors unlocked', '${formatUtc(s.now + 86400)}')`);
  await db.query("UPDATE ovms_notifies SET pushkeyvalue = 'bob2@example.com' WHERE appid = 'bob-mail'");
  await db.query(`DELETE FROM ovms_apitokens WHERE owner = 1`);
  await db.query("UPDATE ovms_autoprovision SET deleted = 1 WHERE ap_key = 'VIN0000000000001'");

  // a dry run says so, and writes nothing
  const dry = await vts(s.importArgs('--dry-run'));
  assert.equal(dry.code, 2, dry.stderr);
  assert.match(dry.stdout, /would add/);
  assert.deepEqual(counts(dry.stdout, 'ovms_owners').slice(1, 4), [1, 1, 1]);
  assert.deepEqual(counts(dry.stdout, 'ovms_apitokens').slice(1), [0, 0, 1, 1, 1], dry.stdout + dry.stderr);
  assert.match(dry.stdout, /dry run: nothing was written/);
  assert.equal((await s.get(`/api/vehicles?${q('bob', 'bobs-new-pass')}`)).status, 401);
  assert.equal((await s.get(`/api/vehicles?${q('alice', REF.aliceToken)}`)).status, 200);

  const third = await vts(s.importArgs());
  assert.equal(third.code, 2, third.stderr);
  assert.deepEqual(counts(third.stdout, 'ovms_owners').slice(1, 4), [1, 1, 1], 'frank added, bob updated, alice unchanged');
  assert.deepEqual(counts(third.stdout, 'ovms_cars').slice(1, 3), [1, 1], 'FRANK1 added, BOB1 updated');
  assert.deepEqual(counts(third.stdout, 'ovms_carmessages').slice(1, 3), [0, 1]);
  assert.deepEqual(counts(third.stdout, 'ovms_historicalmessages').slice(1, 3), [1, 0]);
  assert.deepEqual(counts(third.stdout, 'ovms_notifies').slice(1, 3), [0, 1]);
  assert.deepEqual(counts(third.stdout, 'ovms_apitokens').slice(1), [0, 0, 1, 1, 1], "alice's token removed");
  assert.deepEqual(counts(third.stdout, 'ovms_autoprovision').slice(1), [0, 0, 0, 2, 1], 'VIN…1 deleted at the source: removed here');

  assert.equal((await s.get(`/api/vehicles?${q('bob', 'bobs-new-pass')}`)).status, 200);
  assert.equal((await s.get(`/api/vehicles?${q('bob', REF.bob.password)}`)).status, 401);
  assert.equal((await s.get(`/api/vehicles?${q('frank', 'franks-pass')}`)).status, 200);
  assert.equal((await s.get(`/api/vehicles?${q('alice', REF.alice.password)}`)).status, 200, 'alice: the rehashed password stays');
  assert.equal((await s.get(`/api/vehicles?${q('alice', REF.aliceToken)}`)).status, 401, 'a token gone at the source is gone here');
  assert.equal((await s.h.server.store.getVehicle('BOB1'))?.carPassword, 'bob-new-car-pw');
  const s1 = (await s.h.server.store.getCarMessages('ALICE1')).find((m) => m.code === 'S');
  assert.deepEqual(s1 && [s1.data, s1.time], ['81,K,220,70,charging,standard,280,270', s.now - 10]);
  assert.equal(await s.h.server.store.getAutoProvision('VIN0000000000001'), undefined);

  // and once more: nothing
  const fourth = await vts(s.importArgs());
  for (const table of ['ovms_owners', 'ovms_cars', 'ovms_carmessages', 'ovms_notifies', 'ovms_apitokens']) {
    const [, added, updated, , , removed] = counts(fourth.stdout, table);
    assert.deepEqual([added, updated, removed], [0, 0, 0], `${table} the fourth time`);
  }
});

test('conflicts with data already in vts are reported and left alone; --only limits the tables', { skip }, async (t) => {
  const s = await setup(t);
  const other = await s.h.addUser('bob', 'vts-bob-pass');
  await s.h.addVehicle('ALICE1', other, 'vts-car-pw');
  const r = await vts(s.importArgs('--only', 'owners,cars'));
  assert.equal(r.code, 2);
  assert.match(r.stderr, /skipped a row of ovms_owners: a user bob is in vts already and was not imported from owner 2 of this source: left as it is/);
  assert.match(r.stderr, /skipped a row of ovms_cars: vehicle ALICE1 of owner 1 belongs to user bob in vts: left as it is/);
  assert.deepEqual(
    r.stdout.split('\n').filter((l) => l.startsWith('ovms_')).map((l) => l.split(/\s+/)[0]),
    ['ovms_owners', 'ovms_cars'],
  );
  assert.equal((await s.get(`/api/vehicles?${q('bob', 'vts-bob-pass')}`)).status, 200);
  assert.equal((await s.h.server.store.getVehicle('ALICE1'))?.carPassword, 'vts-car-pw');
  // the messages of a vehicle that was not imported stay out too
  const m = await vts(s.importArgs('--only', 'messages'));
  assert.equal((await s.h.server.store.getCarMessages('ALICE1')).length, 0, m.stdout);
});
