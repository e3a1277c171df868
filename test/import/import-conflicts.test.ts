/**
 * `vts import` over a vts that was tried first (the quick start's demo/DEMO1): the reference's
 * demo and DEMO1 conflict with vts's. By default each conflict is reported with what resolves it
 * and vts's are left; `--on-conflict replace --yes` takes the source's user and vehicle over vts's,
 * with their data; without --yes off a terminal it refuses before anything is read or written.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { verifyPassword } from '../../src/auth/password.js';
import { formatUtc } from '../../src/core/time.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { dataDir, vts } from '../cli/admin-helpers.js';
import { freshReferenceDb } from '../support/reference-db.js';
import { mariadb, needs, requireServices } from '../support/services.js';

const skip = await needs(mariadb);

async function inStore<T>(dir: string, fn: (s: Store) => Promise<T>): Promise<T> {
  const store = await openStore(dir);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** vts after the quick start (demo, DEMO1 with a message) and a reference with its own demo/DEMO1. */
async function setup(t: TestContext): Promise<{ dir: string; args: (...more: string[]) => string[]; now: number }> {
  await requireServices(mariadb);
  const now = Math.floor(Date.now() / 1000);
  const ref = await freshReferenceDb(t);
  const at = formatUtc;
  await ref.db.query('INSERT INTO ovms_owners (owner, name, mail, pass, status) VALUES (1, ?, ?, ?, 1)', ['demo', 'demo@example.com', 'reference-demo-pass']);
  await ref.db.query('INSERT INTO ovms_cars (vehicleid, owner, carpass, v_lastupdate) VALUES (?, 1, ?, ?)', ['DEMO1', 'reference-car-pw', at(now - 600)]);
  await ref.db.query('INSERT INTO ovms_carmessages (owner, vehicleid, m_code, m_valid, m_msgtime, m_paranoid, m_ptoken, m_msg) VALUES (1, ?, ?, 1, ?, 0, ?, ?)', ['DEMO1', 'S', at(now - 600), '', '55,K,220,70,done,standard,180,170']);
  await ref.db.query('INSERT INTO ovms_historicalmessages (owner, vehicleid, h_timestamp, h_recordtype, h_recordnumber, h_data, h_expires) VALUES (1, ?, ?, ?, 0, ?, ?)', ['DEMO1', at(now - 3600), '*-Log-Notification', 'from the reference', at(now + 86400)]);

  const dir = dataDir(t);
  assert.equal((await vts(['user', 'add', 'demo', '--password', 'quick-start-pass', '--data-dir', dir])).code, 0);
  assert.equal((await vts(['vehicle', 'add', 'DEMO1', '--owner', 'demo', '--password', 'quick-start-car', '--data-dir', dir])).code, 0);
  await inStore(dir, async (s) => {
    // newer than the reference's: replace must still take the reference's
    s.putCarMessage('DEMO1', { code: 'S', data: '90,K,quick-start', time: now - 10, paranoid: false, ptoken: '' });
    await s.flush();
  });
  return { dir, now, args: (...more) => ['import', ref.url, '--data-dir', dir, ...more] };
}

test('a conflict is reported with the commands that resolve it; vts is left as it was', { skip }, async (t) => {
  const s = await setup(t);
  const r = await vts(s.args(), '');
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /skipped a row of ovms_owners: a user demo is in vts already and was not imported from owner 1 of this source: left as it is, and the source's vehicles, messages and history of that owner with it \(--on-conflict replace takes the source's user over vts's; or remove it first: vts user remove demo --with-vehicles\)/);
  assert.match(r.stderr, /vts: to take the source's users and vehicles over vts's \(with their data\): vts import mysql:\/\/root@[^ ]+ --on-conflict replace/);
  await inStore(s.dir, async (st) => {
    assert.ok(await verifyPassword('quick-start-pass', (await st.getOwnerByName('demo'))!.passwordHash));
    assert.equal((await st.getVehicle('DEMO1'))?.carPassword, 'quick-start-car');
    assert.deepEqual((await st.getCarMessages('DEMO1')).map((m) => m.data), ['90,K,quick-start']);
  });

  // the resolution it names works: remove vts's demo with its vehicle, import again
  const removed = await vts(['user', 'remove', 'demo', '--with-vehicles', '--data-dir', s.dir]);
  assert.equal(removed.code, 0, removed.stderr);
  const again = await vts(s.args(), '');
  assert.equal(again.code, 0, again.stderr);
  await inStore(s.dir, async (st) => assert.equal((await st.getVehicle('DEMO1'))?.carPassword, 'reference-car-pw'));
});

test('--on-conflict replace: refused off a terminal without --yes; with it the source user and vehicle replace vts\'s, with their data', { skip }, async (t) => {
  const s = await setup(t);
  const refused = await vts(s.args('--on-conflict', 'replace'), '');
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^vts: --on-conflict replace replaces .*: add --yes to go ahead .*\(VTS_ERR_INVALID_INPUT\)\n$/);
  assert.match((await vts(s.args('--on-conflict', 'merge'), '')).stderr, /--on-conflict must be skip or replace: "merge"/);

  // a dry run needs no --yes and writes nothing
  const dry = await vts(s.args('--on-conflict', 'replace', '--dry-run'), '');
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stderr, /would replace user demo of vts by owner 1 of the source/);
  assert.match(dry.stderr, /would replace vehicle DEMO1 of user demo in vts/);
  await inStore(s.dir, async (st) => assert.equal((await st.getVehicle('DEMO1'))?.carPassword, 'quick-start-car'));

  const r = await vts(s.args('--on-conflict', 'replace', '--yes'), '');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /replaced user demo of vts by owner 1 of the source/);
  assert.match(r.stderr, /replaced vehicle DEMO1 of user demo in vts \(with its messages and history\) by the source's/);
  await inStore(s.dir, async (st) => {
    const demo = (await st.getOwnerByName('demo'))!;
    assert.ok(await verifyPassword('reference-demo-pass', demo.passwordHash));
    assert.equal((await st.getVehicle('DEMO1'))?.carPassword, 'reference-car-pw');
    assert.deepEqual((await st.getCarMessages('DEMO1')).map((m) => m.data), ['55,K,220,70,done,standard,180,170']);
    assert.deepEqual((await st.getHistorical('DEMO1', '*-Log-Notification', 0)).map((h) => h.data), ['from the reference']);
  });

  // run again: nothing conflicts any more (both came from this source)
  const again = await vts(s.args('--on-conflict', 'replace', '--yes'), '');
  assert.equal(again.code, 0, again.stderr);
  assert.doesNotMatch(again.stderr, /replaced/);
  await inStore(s.dir, async (st) => assert.equal((await st.getCarMessages('DEMO1')).length, 1));
});
