/**
 * A database outage as one event (src/store/outage.ts): told once when it begins and once when it
 * ends, with the failures counted meanwhile; its errors are recognised (through causes) so that
 * they are not logged one by one; and a batch that fails because of an outage is not split into
 * one commit per vehicle (each would wait for the database and fail the same way).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OutageWatch, isOutage, type OutageEvent } from '../../src/store/outage.js';
import { WriteBehindBuffer } from '../../src/store/write-behind.js';

test('an outage is told when it begins and when it ends, with the failures counted meanwhile', () => {
  let now = 1000;
  const events: OutageEvent[] = [];
  const watch = new OutageWatch((e) => events.push(e), () => now);
  watch.succeeded();
  assert.deepEqual(events, [], 'nothing to tell while the database answers');
  const first = new Error('Query read timeout');
  watch.failed(first);
  now += 500;
  watch.failed(new Error('timeout exceeded when trying to connect'));
  watch.failed(new Error('Connection terminated unexpectedly'));
  assert.deepEqual(events, [{ state: 'down', error: first }]);
  now += 2000;
  watch.succeeded();
  watch.succeeded();
  assert.deepEqual(events, [{ state: 'down', error: first }, { state: 'up', failures: 3, seconds: 2.5 }]);

  assert.equal(isOutage(first), true);
  assert.equal(isOutage(new Error('commit failed, trying again', { cause: first })), true, 'through its causes');
  assert.equal(isOutage(new Error('value too long')), false);
  assert.equal(isOutage(undefined), false);
});

test('a batch that failed because of an outage is held whole and committed whole: no commit per vehicle', async () => {
  const watch = new OutageWatch(() => undefined);
  const tries: number[] = [];
  const buffer = new WriteBehindBuffer(
    (batch) => {
      tries.push(batch.carMessages.size);
      if (tries.length > 4) return;
      const err = new Error('Query read timeout');
      watch.failed(err);
      throw err;
    },
    { delayMs: 10_000, retryDelaysMs: [1], maxRetryDelayMs: 2, onBackgroundError: () => undefined },
  );
  for (const v of ['A', 'B', 'C']) buffer.putCarMessage(v, { code: 'S', data: v, time: 1, paranoid: false, ptoken: '' });
  await buffer.flush();
  assert.deepEqual(tries, [3, 3, 3, 3, 3], 'the batch, tried again whole until it committed; never its three parts');
});
