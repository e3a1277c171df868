/**
 * Back-pressure on MQTT: while the store holds as many writes as it may (`holdWrites`; here the
 * database cannot take them: SQLite with a full disk), the embedded broker handles a client's next
 * publish only once the held writes are committed: its PUBACK (QoS 1) waits, nothing is dropped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type Database from 'better-sqlite3';
import { MpClient } from '../../src/mp-client/mp-client.js';
import { isVtsError } from '../../src/errors.js';
import { SQLITE_ONLY } from '../support/postgres.js';
import { mqttHarness } from './harness.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

test('MQTT: while the held writes reach the bound, a publish is handled (and acknowledged) only once they are committed', { skip: SQLITE_ONLY }, async (t) => {
  const h = await mqttHarness(t, 'embedded', {}, { holdWrites: 1 });
  const car = await h.vehicle();
  const v3 = await h.vehicle();
  const store = h.t.server.store;
  const mp = await MpClient.connect({ host: '127.0.0.1', port: h.t.mpPort, clientType: 'C', vehicleId: car, scheme: 0, password: 'NETPASS' });
  t.after(() => mp.close());
  const client = await h.mqtt({ username: h.user, password: h.password });

  // the disk is full: the car's message is held
  const db = (store as unknown as { db: Database.Database }).db;
  db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
  // (a line of at most 16 KiB: 8 KiB of data, base64 of it encrypted, three times)
  for (const code of ['S', 'D', 'L']) mp.send(code, `80,${'x'.repeat(8 * 1024)}`);
  for (;;) {
    const read = await store.getCarMessages(car).then(
      () => null,
      (err: unknown) => err,
    );
    if (isVtsError(read, 'VTS_ERR_STORE_UNAVAILABLE')) break;
    await sleep(20);
  }
  let acked = false;
  const published = client.publishAsync(`ovms/${h.user}/${v3}/metric/v/b/soc`, '55', { qos: 1 }).then(() => (acked = true));
  await sleep(500);
  assert.equal(acked, false, 'the publish waits while the bound is reached');

  db.pragma('max_page_count = 1073741823');
  await published;
  assert.equal(acked, true);
});
