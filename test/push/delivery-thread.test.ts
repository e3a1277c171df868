/**
 * The delivery thread's life (src/push/delivery-thread.ts) with a stand-in worker
 * (test/support/push/fake-delivery-worker.ts): a thread that fails to start rejects start() with
 * its reason; one that dies is started again, and logs say so; stop() ends it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { DeliveryThread } from '../../src/push/delivery-thread.js';
import { createLogger } from '../../src/util/log.js';

const FAKE = new URL('../support/push/fake-delivery-worker.ts', import.meta.url);

function logged(): { log: ReturnType<typeof createLogger>; lines: string[]; when(msg: string): Promise<void> } {
  const stream = new PassThrough();
  const lines: string[] = [];
  let waiters: { msg: string; resolve: () => void }[] = [];
  stream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) {
      lines.push(line);
      waiters = waiters.filter((w) => (line.includes(w.msg) ? (w.resolve(), false) : true));
    }
  });
  return {
    log: createLogger('info', stream),
    lines,
    when: (msg) => new Promise((resolve) => (lines.some((l) => l.includes(msg)) ? resolve() : waiters.push({ msg, resolve }))),
  };
}

const data = (claimer: string) => ({ config: {}, dataDir: '', database: undefined, claimer, logLevel: 'silent' });

test('a delivery thread that cannot start: start() rejects with its reason', async () => {
  const { log } = logged();
  const thread = new DeliveryThread(data('fail'), log, FAKE);
  await assert.rejects(thread.start(), /no database here/);
  await thread.stop();
});

test('a delivery thread that dies is started again; stop() ends it', async () => {
  const { log, lines, when } = logged();
  const thread = new DeliveryThread(data('crash'), log, FAKE);
  const report = await thread.start();
  assert.deepEqual(report.on, [{ channel: 'webhook', description: 'on (fake)' }]);
  thread.kick(['webhook']);
  await when('push: the delivery thread ended: starting it again in 1 s');
  await when('push: the delivery thread was started again');
  assert.ok(lines.some((l) => l.includes('"code":3')), lines.join('\n'));
  await thread.stop();
});
