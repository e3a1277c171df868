/**
 * A reference server's data for the `vts import` tests: owners of both password kinds (a Drupal 7
 * hash, plain text), vehicles, their latest messages (the reference transcripts' records, a
 * paranoid one among them), history (expired and not), push subscriptions, API tokens and
 * auto-provisioning rows, and rows that break vts's rules, each of a kind the import reports.
 */
import type { Connection } from 'mysql2/promise';
import { formatUtc } from '../../src/core/time.js';
import { recordBodies, type RecordBodyCase } from '../fixtures/load.js';

/** Drupal 7 hash of `hashcat` (hashcat's example hash, mode 7900). */
export const DRUPAL_HASH = '$S$C33783772bRXEx1aCsvY.dqgaaSu76XmVlKrW9Qu8IQlvxHlmzLf';

export const REF = {
  alice: { owner: 1, name: 'alice', password: 'hashcat', mail: 'alice@example.com' },
  bob: { owner: 2, name: 'bob', password: 'bobs-plain-pass', mail: 'bob@example.com' },
  aliceToken: 'a'.repeat(16) + '0123456789abcdef'.repeat(3),
  bobToken: 'B'.repeat(64),
  cars: {
    ALICE1: { owner: 1, password: 'alice-car-pw', name: 'Alice Leaf' },
    BOB1: { owner: 2, password: 'bob-car-pw', name: 'Bob Twizy' },
    BOBSRV: { owner: 2, password: 'peer-server-pw', name: 'peer', type: 'SERVER' },
  },
  /** The reference transcripts' cases that have records: one vehicle each, REC<i>, alice's. */
  recordCases: (): { vehicle: string; c: RecordBodyCase }[] =>
    recordBodies()
      .filter((c) => Object.keys(c.records).length > 0)
      .map((c, i) => ({ vehicle: `REC${i}`, c })),
} as const;

const at = (epoch: number): string => formatUtc(epoch);

/** Rows to insert, by table: column names, then rows. */
async function insert(db: Connection, table: string, columns: string[], rows: unknown[][]): Promise<void> {
  if (rows.length > 0) await db.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ?`, [rows]);
}

/** Fills a reference database made by freshReferenceDb; `now`: epoch seconds. */
export async function fillReference(db: Connection, now: number): Promise<void> {
  await insert(db, 'ovms_owners', ['owner', 'name', 'mail', 'pass', 'status', 'deleted', 'changed'], [
    [1, 'alice', REF.alice.mail, DRUPAL_HASH, 1, 0, at(now - 86400)],
    [2, 'bob', REF.bob.mail, REF.bob.password, 1, 0, at(now - 86400)],
    [3, 'carol', 'carol@example.com', 'carols-pass', 0, 0, at(now)], // not active
    [4, 'dave', '', 'daves-pass', 1, 1, at(now)], // deleted
    [5, 'eve with space', '', 'x', 1, 0, at(now)], // a name vts does not take
  ]);
  // an operator widened the column once: ids longer than the schema's 32 characters are there
  await db.query("ALTER TABLE ovms_cars MODIFY vehicleid varchar(64) NOT NULL DEFAULT ''");
  const cars: unknown[][] = Object.entries(REF.cars).map(([id, c]) => [id, c.name, c.owner, c.password, 'type' in c ? c.type : 'CAR', '', 0, at(now - 600)]);
  cars.push(
    ['CAROL1', '', 3, 'carol-car', 'CAR', '', 0, at(now)], // its owner is not active
    ['GONE1', '', 1, 'gone-car', 'CAR', '', 1, at(now)], // deleted
    ['THIS-VEHICLE-ID-IS-FAR-TOO-LONG-FOR-VTS', '', 1, 'long-car', 'CAR', '', 0, at(now)], // over-long id
    ['SPACEPW', '', 2, 'has a space', 'CAR', '', 0, at(now)], // car password vts cannot store
  );
  for (const { vehicle } of REF.recordCases()) cars.push([vehicle, '', 1, 'rec-car-pw', 'CAR', '', 0, at(now - 60)]);
  await insert(db, 'ovms_cars', ['vehicleid', 'vehiclename', 'owner', 'carpass', 'v_type', 'v_ptoken', 'deleted', 'v_lastupdate'], cars);

  const messages: unknown[][] = [
    [1, 'ALICE1', 'S', 1, at(now - 600), 0, '', '80,K,220,70,charging,standard,280,270'],
    [1, 'ALICE1', 'L', 1, at(now - 600), 0, '', '51.5,-0.1,90,20,1,1,0,123,2,5.5,100,10,2,95'],
    [1, 'ALICE1', 'D', 1, at(now - 500), 1, 'tok1', 'cGFyYW5vaWQ='], // paranoid, with its token
  ];
  for (const { vehicle, c } of REF.recordCases()) {
    for (const [code, r] of Object.entries(c.records)) messages.push([1, vehicle, code, 1, r.time, r.paranoid ? 1 : 0, r.paranoid ? 'ptok' : '', r.data]);
  }
  await insert(db, 'ovms_carmessages', ['owner', 'vehicleid', 'm_code', 'm_valid', 'm_msgtime', 'm_paranoid', 'm_ptoken', 'm_msg'], messages);

  await insert(db, 'ovms_historicalmessages', ['owner', 'vehicleid', 'h_timestamp', 'h_recordtype', 'h_recordnumber', 'h_data', 'h_expires'], [
    [1, 'ALICE1', at(now - 7200), '*-Log-Notification', 0, 'Charging stopped', at(now + 86400 * 30)],
    [1, 'ALICE1', at(now - 3600), '*-Log-Notification', 0, 'Alarm', at(now + 86400 * 30)],
    [1, 'ALICE1', at(now - 3600), '*-LOG-Trip', 1, '12.5,3.2,1', at(now + 86400 * 30)],
    [1, 'ALICE1', at(now - 3600), '*-LOG-Trip', 2, '7.5,1.2,0', at(now + 86400 * 30)],
    [1, 'ALICE1', at(now - 86400 * 40), '*-Log-Notification', 0, 'long ago', at(now - 86400 * 10)], // expired
    [1, 'ALICE1', at(now - 86400), '*-OVM-Utilisation', 0, '1234', at(now + 3600)], // traffic counter
    [3, 'CAROL1', at(now - 60), 'S', 0, '1,2,3', at(now + 86400)], // its vehicle is not imported
  ]);
  await insert(db, 'ovms_notifies', ['owner', 'vehicleid', 'appid', 'pushtype', 'pushkeytype', 'pushkeyvalue', 'lastupdated', 'active'], [
    [1, 'ALICE1', 'ios-app-1', 'apns', 'production', 'f'.repeat(64), at(now - 3600), 1],
    [2, 'BOB1', 'bob-mail', 'mail', 'simple', REF.bob.mail, at(now - 3600), 1],
  ]);
  await insert(db, 'ovms_apitokens', ['owner', 'token', 'application', 'purpose', 'permit', 'created', 'lastused'], [
    [1, REF.aliceToken, 'evcc', 'charging', 'auth', at(now - 86400), at(now - 60)],
    [2, REF.bobToken, 'ha', 'home', 'auth,v2', at(now - 86400), '1900-01-01 00:00:00'],
    [2, 'short-token', 'old', 'old', 'auth', at(now - 86400), at(now - 60)], // not a token vts checks
  ]);
  await insert(db, 'ovms_autoprovision', ['ap_key', 'ap_stoken', 'ap_sdigest', 'ap_msg', 'deleted', 'owner'], [
    ['VIN0000000000001', 'stoken1', 'c2RpZ2VzdA==', 'bWVzc2FnZQ==', 0, 1],
    ['VIN0000000000002', 'stoken2', 'c2RpZ2VzdA==', 'bWVzc2FnZQ==', 1, 2], // deleted
  ]);
}
