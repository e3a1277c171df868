/**
 * The push delivery thread's entry (a worker thread; src/push/delivery-thread.ts starts it): its
 * own connection to the database, the providers and the dispatcher. Everything a delivery costs
 * (claims, requests, answers, recording the attempts) runs here, off the event loop of the cars'
 * and apps' connections. The main thread only writes notifications to the outbox and says "look".
 */
import { getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { createLogger } from '../util/log.js';
import { openStore } from '../store/open.js';
import { logOutage, logStoreFailure } from '../store/outage.js';
import { Dispatcher } from './dispatcher.js';
import type { DeliveryThreadData, FromWorker, ToWorker } from './delivery-thread.js';
import { buildProviders, providerReport } from './providers.js';
import { dispatcherOptions } from './push-config.js';

function notAWorker(): never {
  throw new Error('src/push/delivery-worker.ts runs as a worker thread');
}
const port = parentPort ?? notAWorker();
const data = workerData as DeliveryThreadData;
const log = createLogger(data.logLevel, 2, data.logFormat).child({ thread: 'push' });
const say = (m: FromWorker): void => port.postMessage(m);

/**
 * How much lower the thread's CPU priority is than the server's (nice steps, Linux, where the nice
 * value belongs to a thread): when the CPU is short, the connections' event loop goes first, and
 * the deliveries take about a tenth of a contended core (idle CPU they take whole).
 */
const NICER_BY = 10;

function yieldToConnections(): void {
  if (process.platform !== 'linux') return; // elsewhere it would lower the whole process
  try {
    setPriority(0, Math.min(19, getPriority(0) + NICER_BY));
  } catch (err) {
    log.debug({ err }, 'push: the delivery thread keeps the normal CPU priority');
  }
}

async function main(): Promise<void> {
  yieldToConnections();
  const store = await openStore(data.dataDir, {
    database: data.database,
    create: false,
    databaseTimeoutMs: data.databaseTimeoutMs,
    onBackgroundError: (err: unknown) => logStoreFailure(log, 'error', err, {}, 'push: store background write failed'),
    onOutage: (event) => logOutage(log, event),
  });
  const providers = buildProviders(data.config, { log, now: Date.now, ...(data.config.ca ? { ca: data.config.ca } : {}) });
  const dispatcher = new Dispatcher(providers.providers, store.push, dispatcherOptions(data.config, data.claimer), log, () => Math.floor(Date.now() / 1000));
  let stopping: Promise<void> | null = null;
  port.on('message', (m: ToWorker) => {
    if (m.t === 'kick') for (const channel of m.channels) dispatcher.kick(channel);
    else if (m.t === 'pace') dispatcher.pace(m.share);
    else if (m.t === 'stop') {
      stopping ??= (async () => {
        await dispatcher.stop();
        await Promise.allSettled(providers.providers.map((p) => p.close()));
        await store.close();
        say({ t: 'stopped' });
        port.close();
      })();
    }
  });
  await dispatcher.start();
  // told to stop meanwhile: it says `stopped`, not `ready`
  if (stopping === null) say({ t: 'ready', report: providerReport(providers) });
}

main().catch((err: unknown) => {
  say({ t: 'failed', message: err instanceof Error ? err.message : String(err) });
  port.close();
});
