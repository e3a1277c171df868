import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WriteBehindBuffer, type WriteBatch } from '../../src/store/write-behind.js';
import { sleep } from './helpers.js';
import { isVtsError } from '../../src/errors.js';

function recorder(delayMs = 30, fail?: () => boolean, retryDelaysMs: number[] = [], retryable = true) {
  const batches: WriteBatch[] = [];
  const errors: unknown[] = [];
  const buffer = new WriteBehindBuffer(
    (b) => {
      if (fail?.()) throw new Error('commit failed');
      batches.push(b);
    },
    { delayMs, onBackgroundError: (e) => errors.push(e), retryDelaysMs, retryable: () => retryable },
  );
  return { buffer, batches, errors };
}

const msg = (code: string, data: string, time = 1) => ({ code, data, time, paranoid: false, ptoken: '' });

test('write-behind: one commit at most delayMs after the first write, coalesced', async () => {
  const { buffer, batches } = recorder(30);
  buffer.putCarMessage('V', msg('S', 'a', 1));
  buffer.putCarMessage('V', msg('S', 'b', 2));
  buffer.putCarMessage('V', msg('D', 'c', 3));
  buffer.addUtilisation([{ vehicleId: 'V', day: 0, clientType: 'C', rx: 1, tx: 2 }]);
  buffer.addUtilisation([{ vehicleId: 'V', day: 0, clientType: 'C', rx: 10, tx: 20 }]);
  buffer.touchApiToken(1, 'h', 5);
  buffer.touchApiToken(1, 'h', 4);
  assert.equal(batches.length, 0);
  await sleep(80);
  assert.equal(batches.length, 1);
  const b = batches[0]!;
  assert.deepEqual([...b.carMessages.get('V')!.values()].map((m) => m.data), ['b', 'c']);
  assert.equal(b.lastUpdates.get('V'), 3);
  assert.deepEqual([...b.utilisation.values()], [{ vehicleId: 'V', day: 0, clientType: 'C', rx: 11, tx: 22 }]);
  assert.deepEqual([...b.tokenTouches.values()], [{ ownerId: 1, tokenHash: 'h', time: 5 }]);
  assert.ok(buffer.isEmpty);
  await sleep(50);
  assert.equal(batches.length, 1); // nothing pending, no empty commit
});

test('write-behind: durable writes of one tick share one commit and resolve after it', async () => {
  const { buffer, batches } = recorder(10_000);
  const rec = (n: number) => ({ vehicleId: 'V', type: 'T', recordNumber: n, time: 1, data: '', expires: 2 });
  buffer.addHistorical(rec(0));
  const done = [buffer.addHistoricalDurable(rec(1)), buffer.addHistoricalDurable(rec(2))];
  assert.equal(batches.length, 0);
  await Promise.all(done);
  assert.equal(batches.length, 1);
  assert.equal(batches[0]!.historical.size, 3);
});

test('write-behind: a commit given up (an error that would fail again) is reported and the durable writers reject', async () => {
  let failing = true;
  const { buffer, batches, errors } = recorder(10, () => failing, [], false);
  buffer.putCarMessage('V', msg('S', 'lost'));
  const durable = buffer.addHistoricalDurable({ vehicleId: 'V', type: 'T', recordNumber: 0, time: 1, data: '', expires: 2 });
  await assert.rejects(durable, /commit failed/);
  await sleep(30);
  assert.equal(errors.length, 1);
  failing = false;
  buffer.putCarMessage('V', msg('S', 'kept'));
  await buffer.flush();
  assert.equal(batches.length, 1);
  assert.equal(batches[0]!.carMessages.get('V')!.get('S')!.data, 'kept');
});

test('write-behind: a token change marks the pending messages put before it; a removal discards the pending writes', async () => {
  const { buffer, batches } = recorder(10_000);
  buffer.putCarMessage('V', { code: 'S', data: 'p', time: 7, paranoid: true, ptoken: 'A' });
  buffer.putCarMessage('V', msg('D', 'plain'));
  const changed = buffer.setParanoidToken('V', 'B');
  buffer.putCarMessage('V', { code: 'L', data: 'after', time: 8, paranoid: true, ptoken: 'A' });
  buffer.putCarMessage('W', msg('D', 'other'));
  await changed;
  assert.equal(batches.length, 1, 'a token change commits at the end of the turn');
  const b = batches[0]!;
  assert.deepEqual(
    [...b.carMessages.get('V')!.values()].map((m) => [m.code, m.valid]),
    [
      ['S', false],
      ['D', true],
      ['L', true],
    ],
  );
  assert.deepEqual(b.paranoidTokens.get('V'), ['B']);
  assert.ok(b.durable);

  buffer.putCarMessage('V', msg('S', 'gone'));
  buffer.addHistorical({ vehicleId: 'V', type: 'T', recordNumber: 0, time: 1, data: '', expires: 2 });
  void buffer.setParanoidToken('V', 'C');
  buffer.touchApiToken(1, 'h', 9);
  buffer.discardTokenTouches(1);
  const removed = buffer.removeVehicle('V');
  await removed;
  const r = batches[1]!;
  assert.equal(r.carMessages.size + r.historical.size + r.paranoidTokens.size + r.tokenTouches.size, 0, 'nothing of V left');
  assert.deepEqual([...r.removals.keys()], ['V']);
  assert.ok(buffer.isEmpty);
  assert.equal(buffer.committed(), null, 'nothing left to wait for');
});

/**
 * A database in memory whose commits are asynchronous: a batch is applied, atomically, when its
 * gate opens, as a PostgreSQL commit would be (removals, token changes, then the rows).
 */
function asyncDatabase() {
  const vehicles = new Map<string, string>(); // id → paranoid token
  const rows = new Map<string, Map<string, { data: string; ptoken: string; paranoid: boolean; valid: boolean }>>();
  const gates: (() => void)[] = [];
  let failFor: string | null = null;
  const commit = async (b: WriteBatch): Promise<void> => {
    await new Promise<void>((r) => gates.push(r));
    if (failFor !== null && (b.carMessages.has(failFor) || b.historical.size > 0)) throw new Error(`bad rows of ${failFor}`);
    for (const [vid, removal] of b.removals) {
      removal.removed = vehicles.delete(vid);
      rows.delete(vid);
    }
    for (const [vid, tokens] of b.paranoidTokens) {
      if (!vehicles.has(vid)) continue;
      vehicles.set(vid, tokens[tokens.length - 1]!);
      for (const m of rows.get(vid)?.values() ?? []) if (m.paranoid && tokens.some((t) => t !== m.ptoken)) m.valid = false;
    }
    for (const [vid, codes] of b.carMessages) {
      if (!vehicles.has(vid)) continue; // INSERT … SELECT FROM vehicles: a removed vehicle takes nothing
      let stored = rows.get(vid);
      if (!stored) rows.set(vid, (stored = new Map()));
      for (const m of codes.values()) stored.set(m.code, { data: m.data, ptoken: m.ptoken, paranoid: m.paranoid, valid: m.valid });
    }
  };
  // rows that fail: an error that would fail the same way again
  const buffer = new WriteBehindBuffer(commit, { delayMs: 10_000, retryDelaysMs: [], retryable: () => false, onBackgroundError: () => undefined });
  return {
    buffer,
    vehicles,
    rows,
    /** Resolves once a commit has started (its batch is in flight) and waits for its gate. */
    async started(): Promise<void> {
      while (gates.length === 0) await sleep(1);
    },
    /** Lets the oldest waiting commit apply (once it has started). */
    async open(): Promise<void> {
      await this.started();
      gates.shift()!();
      await sleep(1);
    },
    failFor(vid: string | null) {
      failFor = vid;
    },
  };
}

const enc = (code: string, data: string, ptoken: string) => ({ code, data, time: 1, paranoid: true, ptoken });

test('write-behind, asynchronous commits: a token change covers the batch in flight, the buffered and the stored messages, not later ones', async () => {
  const db = asyncDatabase();
  db.vehicles.set('V', 'A');
  db.buffer.putCarMessage('V', enc('W', 'stored', 'A'));
  const stored = db.buffer.flush();
  await db.open();
  await stored;
  db.buffer.putCarMessage('V', enc('S', 'in flight', 'A'));
  const inflight = db.buffer.flush();
  await db.started();
  db.buffer.putCarMessage('V', enc('L', 'buffered', 'A'));
  const changed = db.buffer.setParanoidToken('V', 'B');
  db.buffer.putCarMessage('V', enc('D', 'after, old token', 'A'));
  db.buffer.putCarMessage('V', enc('Y', 'after, new token', 'B'));
  // a read of the vehicle waits for the token change
  const read = db.buffer.committedFor('V');
  assert.ok(read);
  let readDone = false;
  void read.then(() => (readDone = true));

  await db.open(); // the batch in flight
  await inflight;
  assert.equal(readDone, false, 'the read still waits for the token change');
  await db.open(); // the batch with the token change
  await changed;
  await read;
  assert.equal(db.vehicles.get('V'), 'B');
  const valid = Object.fromEntries([...db.rows.get('V')!].map(([code, m]) => [code, m.valid]));
  assert.deepEqual(valid, { W: false, S: false, L: false, D: true, Y: true });
});

test('write-behind, asynchronous commits: a vehicle removed while its writes are in flight or buffered keeps nothing, re-added or not', async () => {
  const db = asyncDatabase();
  db.vehicles.set('V', '');
  db.buffer.putCarMessage('V', msg('S', 'in flight'));
  const inflight = db.buffer.flush();
  await db.started();
  db.buffer.putCarMessage('V', msg('D', 'buffered'));
  db.buffer.addUtilisation([{ vehicleId: 'V', day: 0, clientType: 'C', rx: 1, tx: 1 }]);
  const removed = db.buffer.removeVehicle('V');
  assert.ok(db.buffer.committedFor('V'), 'a read of the vehicle waits for its removal');
  await db.open();
  await inflight;
  assert.equal(db.rows.get('V')?.get('S')?.data, 'in flight');
  await db.open();
  assert.equal(await removed, true);
  assert.equal(db.rows.get('V'), undefined, 'the rows of the batch in flight went with the vehicle');
  // re-added: nothing of the old one lands on it
  db.vehicles.set('V', '');
  assert.equal(db.buffer.committed(), null, 'nothing buffered');
  assert.equal(db.rows.get('V'), undefined);
  const again = db.buffer.removeVehicle('W');
  await db.open();
  assert.equal(await again, false, 'no such vehicle');
});

test('write-behind, asynchronous commits: a failing vehicle does not take the token change or removal of another with it', async () => {
  const db = asyncDatabase();
  db.vehicles.set('V', 'A');
  db.vehicles.set('GONE', '');
  db.vehicles.set('BAD', '');
  db.failFor('BAD');
  db.buffer.putCarMessage('V', enc('S', 'old', 'A'));
  const changed = db.buffer.setParanoidToken('V', 'B');
  const removed = db.buffer.removeVehicle('GONE');
  db.buffer.putCarMessage('BAD', msg('S', 'bad'));
  const bad = db.buffer.addHistoricalDurable({ vehicleId: 'BAD', type: 'T', recordNumber: 0, time: 1, data: '', expires: 2 }).then(
    () => assert.fail('committed'),
    (err: unknown) => err,
  );
  const flushed = db.buffer.flush().then(
    () => assert.fail('the batch lost rows'),
    (err: unknown) => err,
  );
  await db.open(); // the whole batch: fails
  await db.open(); // its parts, one by one
  await db.open();
  await db.open();
  await changed;
  assert.equal(await removed, true);
  assert.match(String(await bad), /bad rows of BAD/, 'the failing vehicle\'s durable write is refused');
  assert.match(String(await flushed), /bad rows of BAD/);
  assert.equal(db.vehicles.get('V'), 'B');
  assert.equal(db.rows.get('V')?.get('S')?.valid, false);
  assert.equal(db.vehicles.has('GONE'), false);
});

test('write-behind: an asynchronous commit: waiters wait for it, and commits are serialised', async () => {
  const order: string[] = [];
  let release!: () => void;
  const buffer = new WriteBehindBuffer(
    async (b) => {
      const data = b.carMessages.get('V')?.get('S')?.data ?? '';
      order.push('start ' + data);
      if (data === 'one') await new Promise<void>((r) => (release = r));
      order.push('end ' + data);
    },
    { delayMs: 10_000 },
  );
  buffer.putCarMessage('V', msg('S', 'one'));
  const first = buffer.flush();
  await sleep(5);
  // in flight: a read of V waits for it, one of another vehicle does not
  const readV = buffer.committedFor('V');
  assert.ok(readV);
  assert.equal(buffer.committedFor('W'), null);
  void readV.then(() => order.push('read V'));
  buffer.afterCommit(() => order.push('after one'));
  buffer.putCarMessage('V', msg('S', 'two'));
  buffer.afterCommit(() => order.push('after two'));
  const second = buffer.flush();
  await sleep(5);
  assert.deepEqual(order, ['start one']);
  release();
  await Promise.all([first, second]);
  await sleep(1);
  assert.deepEqual(order, ['start one', 'end one', 'after one', 'read V', 'start two', 'end two', 'after two']);
});

test('write-behind: a failed commit is tried again; waiters and callbacks go on only after it committed', async () => {
  let failures = 2;
  const { buffer, batches, errors } = recorder(10_000, () => failures-- > 0, [1, 1, 1]);
  const order: string[] = [];
  buffer.putCarMessage('V', msg('S', 'kept'));
  const durable = buffer.addHistoricalDurable({ vehicleId: 'V', type: 'T', recordNumber: 0, time: 1, data: '', expires: 2 });
  buffer.afterCommit(() => order.push(`callback after ${batches.length} commit(s)`));
  await durable;
  await buffer.idle();
  assert.equal(batches.length, 1);
  assert.equal(batches[0]!.carMessages.get('V')!.get('S')!.data, 'kept');
  assert.deepEqual(order, ['callback after 1 commit(s)']);
  assert.equal(errors.length, 2, 'each failed try is reported');
  assert.match(String(errors[0]), /trying again in 1 ms/);
});

test('write-behind: while the database is away the batch is held: nothing goes on, reads are refused, the bound counts; then all in order', async () => {
  let away = true;
  const tries: number[] = [];
  const batches: WriteBatch[] = [];
  const errors: unknown[] = [];
  let resumed = 0;
  const buffer = new WriteBehindBuffer(
    (b) => {
      tries.push(b.writes);
      if (away) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      batches.push(b);
    },
    { delayMs: 10_000, retryDelaysMs: [1], maxRetryDelayMs: 4, maxHeldWrites: 3, onBackgroundError: (e) => errors.push(e), onResumed: () => resumed++ },
  );
  const order: string[] = [];
  buffer.putCarMessage('V', msg('S', '1', 1));
  buffer.afterCommit(() => order.push('S#1'), 'V');
  const durable = buffer.addHistoricalDurable({ vehicleId: 'V', type: 'T', recordNumber: 0, time: 1, data: '', expires: 2 });
  assert.equal(buffer.congested, false);
  while (!buffer.holding) await sleep(1);
  // held: tried again and again, nothing passed on, the durable write still waits
  while (tries.length < 5) await sleep(1);
  assert.equal(order.length, 0);
  assert.equal(errors.length, 2, 'the scheduled retry and the hold are reported, not each try of the hold');
  assert.match(String(errors[1]), /does not answer .*ECONNREFUSED.*2 writes are held/);
  // a read that would wait for the held writes is refused at once; one of another vehicle is not held up
  await assert.rejects(buffer.committedFor('V')!, (err: unknown) => isVtsError(err, 'VTS_ERR_STORE_UNAVAILABLE'));
  assert.equal(buffer.committedFor('W'), null);
  // writes go on being buffered behind the held batch, up to the bound
  buffer.putCarMessage('V', msg('S', '2', 2));
  buffer.afterCommit(() => order.push('S#2'), 'V');
  assert.equal(buffer.congested, true, '3 held writes: the bound');
  await assert.rejects(buffer.committed()!, (err: unknown) => isVtsError(err, 'VTS_ERR_STORE_UNAVAILABLE'));
  away = false;
  await durable;
  await buffer.flush();
  assert.deepEqual(order, ['S#1', 'S#2']);
  assert.equal(resumed, 1);
  assert.deepEqual(
    batches.map((b) => b.carMessages.get('V')!.get('S')!.data),
    ['1', '2'],
  );
  assert.equal(buffer.congested, false);
  assert.equal(buffer.holding, false);
  assert.equal(buffer.commits, 2);
});

test('write-behind: what passes on a vehicle whose writes are lost for good is skipped; the rest goes on', async () => {
  const buffer = new WriteBehindBuffer(
    (b) => {
      if (b.carMessages.has('BAD')) throw new Error('bad rows');
    },
    { delayMs: 10_000, retryDelaysMs: [], retryable: () => false, onBackgroundError: () => undefined },
  );
  const order: string[] = [];
  buffer.putCarMessage('BAD', msg('S', 'x'));
  buffer.afterCommit(() => order.push('BAD S'), 'BAD');
  buffer.putCarMessage('OK', msg('S', 'y'));
  buffer.afterCommit(() => order.push('OK S'), 'OK');
  buffer.afterCommit(() => order.push('reply'));
  await buffer.flush().catch(() => undefined);
  assert.deepEqual(order, ['OK S', 'reply']);
});

test('write-behind: closing gives a held batch up (reported), and its callbacks of vehicles are skipped', async () => {
  const errors: unknown[] = [];
  const buffer = new WriteBehindBuffer(
    () => {
      throw new Error('Connection terminated unexpectedly');
    },
    { delayMs: 10_000, retryDelaysMs: [], maxRetryDelayMs: 60_000, onBackgroundError: (e) => errors.push(e) },
  );
  const order: string[] = [];
  buffer.putCarMessage('V', msg('S', 'x'));
  buffer.afterCommit(() => order.push('V S'), 'V');
  buffer.afterCommit(() => order.push('reply'));
  const first = buffer.flush();
  while (!buffer.holding) await sleep(1);
  buffer.close();
  await assert.rejects(first, /does not answer at shutdown \(Connection terminated unexpectedly\): 1 buffered writes are lost/);
  assert.deepEqual(order, ['reply']);
});
