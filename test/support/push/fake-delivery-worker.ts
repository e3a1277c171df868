/**
 * A stand-in for src/push/delivery-worker.ts in test/push/delivery-thread.test.ts: what it does
 * is named by its `claimer`: `fail` reports a failed start; `crash` is ready, and ends its thread
 * (exit code 3) when told to look at the outbox; anything else is ready and stops when told.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { DeliveryThreadData, FromWorker, ToWorker } from '../../../src/push/delivery-thread.js';

const port = parentPort!;
const data = workerData as DeliveryThreadData;
const say = (m: FromWorker): void => port.postMessage(m);

if (data.claimer === 'fail') {
  say({ t: 'failed', message: 'no database here' });
  port.close();
} else {
  port.on('message', (m: ToWorker) => {
    if (m.t === 'kick' && data.claimer === 'crash') process.exit(3);
    if (m.t === 'stop') {
      say({ t: 'stopped' });
      port.close();
    }
  });
  say({ t: 'ready', report: { on: [{ channel: 'webhook', description: 'on (fake)' }], off: [], broken: [] } });
}
