/**
 * Runs the push deliveries in a worker thread (src/push/delivery-worker.ts): a burst of alerts
 * costs a few thousand requests and database writes, which on the server's own event loop would
 * slow every car and app connected (measured: MP ingest at 62-72 % of its rate during a burst).
 * The thread has its own database connection, providers and dispatcher; this side starts it,
 * tells it to look at the outbox, stops it, and starts it again if it dies.
 */
import type { LogFormat } from '../util/log.js';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Channel } from '../core/push/channels.js';
import type { PushConfig } from './push-config.js';
import type { ProviderReport } from './providers.js';

/** What the thread is started with (cloned into it). */
export interface DeliveryThreadData {
  config: PushConfig;
  /** The store it opens: the server's (its SQLite file in dataDir, or the PostgreSQL URL). */
  dataDir: string;
  database: string | undefined;
  /** PostgreSQL: the statement timeout of `--database-timeout` (ms; unset: none). */
  databaseTimeoutMs?: number;
  /** Who claims deliveries (the node id in a cluster). */
  claimer: string;
  logLevel: string;
  /** JSON or pretty, as the server's own log (src/util/log.ts). */
  logFormat?: LogFormat;
}

export type ToWorker = { t: 'kick'; channels: Channel[] } | { t: 'pace'; share: number } | { t: 'stop' };
export type FromWorker = { t: 'ready'; report: ProviderReport } | { t: 'stopped' } | { t: 'failed'; message: string };

/** How often the server's event loop is looked at for the pace of the deliveries (ms). */
const PACE_PERIOD_MS = 500;

/**
 * The share of each provider's concurrency the deliveries get when the server's event loop was
 * busy for `utilisation` (0–1) of the last period: all of it while the loop has room; a half,
 * then a quarter, as it fills up. The thread's own CPU and the providers' answers would otherwise
 * take from the cars and apps exactly when the server has none to spare; a burst of alerts then
 * takes longer to go out (seconds), which they can afford.
 */
export function paceFor(utilisation: number): number {
  if (utilisation >= 0.9) return 0.25;
  if (utilisation >= 0.75) return 0.5;
  return 1;
}

/** The longest wait for the thread to start, and to stop (ms). */
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 20_000;
const RESTART_FIRST_MS = 1000;
const RESTART_MAX_MS = 30_000;

/**
 * The worker of `entry`: compiled JavaScript as it is; a TypeScript source (tests and `tsx`
 * runs) through tsx's loader, which a worker thread does not inherit from its parent.
 */
function spawn(entry: URL, data: DeliveryThreadData): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, { workerData: data });
  const tsx = import.meta.resolve('tsx/esm/api');
  const code = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(code, { eval: true, workerData: data });
}

export class DeliveryThread {
  private worker: Worker | null = null;
  private stopping = false;
  private restarts = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private paceTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly data: DeliveryThreadData,
    private readonly log: Logger,
    private readonly entry = new URL(import.meta.url.endsWith('.ts') ? './delivery-worker.ts' : './delivery-worker.js', import.meta.url),
  ) {}

  /** Starts the thread; resolves with what its providers are once it works off the outbox. */
  start(): Promise<ProviderReport> {
    return new Promise<ProviderReport>((resolve, reject) => {
      const worker = spawn(this.entry, this.data);
      this.worker = worker;
      let ready = false;
      const timer = setTimeout(() => fail(new Error(`it did not start within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
      const fail = (err: Error): void => {
        clearTimeout(timer);
        if (!ready) {
          this.worker = null;
          void worker.terminate();
          reject(err);
        }
      };
      worker.on('message', (m: FromWorker) => {
        if (m.t === 'ready') {
          ready = true;
          clearTimeout(timer);
          this.restarts = 0;
          if (!this.stopping) this.followLoad(worker);
          resolve(m.report);
        } else if (m.t === 'failed') fail(new Error(m.message));
      });
      worker.on('error', (err) => {
        if (!ready) return fail(err);
        this.log.error({ err }, 'push: the delivery thread failed');
      });
      worker.on('exit', (code) => {
        if (!ready) return fail(new Error(`it ended (exit code ${code})`));
        if (this.worker !== worker || this.stopping) return;
        this.worker = null;
        this.restartLater(code);
      });
    });
  }

  /** Tells `worker` the pace that the load of this (the server's) event loop allows, when it changes. */
  private followLoad(worker: Worker): void {
    clearInterval(this.paceTimer);
    let last = performance.eventLoopUtilization();
    let share = 1;
    this.paceTimer = setInterval(() => {
      const now = performance.eventLoopUtilization();
      const next = paceFor(performance.eventLoopUtilization(now, last).utilization);
      last = now;
      if (next === share) return;
      share = next;
      worker.postMessage({ t: 'pace', share } satisfies ToWorker);
    }, PACE_PERIOD_MS);
    this.paceTimer.unref();
  }

  /** The thread died: started again, later and later while it keeps failing. */
  private restartLater(code: number): void {
    const delay = Math.min(RESTART_FIRST_MS * 2 ** this.restarts++, RESTART_MAX_MS);
    this.log.error({ code }, `push: the delivery thread ended: starting it again in ${delay / 1000} s`);
    this.restartTimer = setTimeout(() => {
      if (this.stopping) return;
      this.start().then(
        () => this.log.info('push: the delivery thread was started again'),
        (err: unknown) => {
          this.log.error({ err }, 'push: starting the delivery thread again failed');
          if (!this.stopping) this.restartLater(1);
        },
      );
    }, delay);
  }

  /** Tells the thread to look for due deliveries of these channels now. */
  kick(channels: Channel[]): void {
    this.worker?.postMessage({ t: 'kick', channels } satisfies ToWorker);
  }

  /** Stops the thread: what is in flight ends as a temporary failure, tried again later. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    clearInterval(this.paceTimer);
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.log.warn('push: the delivery thread took too long to stop: ended');
        void worker.terminate().then(() => resolve());
      }, STOP_TIMEOUT_MS);
      worker.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      // everything is recorded and closed once it says so: what is left (idle sockets) can go
      worker.on('message', (m: FromWorker) => {
        if (m.t === 'stopped') void worker.terminate();
      });
      worker.postMessage({ t: 'stop' } satisfies ToWorker);
    });
  }
}
