/**
 * WAL checkpoints off the event loop. By default SQLite checkpoints inside the commit that fills
 * the WAL past 1,000 pages: that commit then copies the pages back into the database file and
 * syncs both files, and with better-sqlite3's synchronous calls the event loop waits. Under a
 * parked fleet's steady trickle of writes that was a 15–30 ms stall every ten seconds or so, which
 * every app request in flight waited out. With this on, a worker thread with a connection of its
 * own runs a PASSIVE checkpoint (which never blocks a writer or a reader) every `everyMs`, and the
 * store's connection checkpoints only past `FALLBACK_PAGES`. The WAL starts again from its
 * beginning when a write finds everything in it checkpointed: under a trickle of writes the worker
 * gets there between two commits. Under writes without a pause (an ingest at full speed, a
 * reconnect storm) it never does, and the WAL would grow without end: there the connection's own
 * checkpoint, of what the worker has not copied yet, keeps it to some 16 MiB. Should the worker
 * stop, the connection checkpoints as SQLite does by default. Closing stops the worker (its connection closes first,
 * so the store's own close, the last, still folds the WAL into the file and removes it).
 */
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';

/** SQLite's default `wal_autocheckpoint`, restored when the worker stops. */
const AUTO_PAGES = 1000;
/** The connection's own `wal_autocheckpoint` while the worker runs: its fallback under writes without a pause. */
export const FALLBACK_PAGES = 4000;

// CommonJS, evaluated: no file of its own to find under tsx or in dist/
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 0');
let told = '';
const timer = setInterval(() => {
  try {
    // a checkpoint that meets another (another process's) answers busy in its row: the next tick tries again
    db.pragma('wal_checkpoint(PASSIVE)');
    told = '';
  } catch (err) {
    // a lock held a moment (SQLITE_BUSY_…) is no problem; anything else is told once until it clears
    const code = String((err && err.code) || '');
    const message = String((err && err.message) || err);
    if (!code.startsWith('SQLITE_BUSY') && message !== told) parentPort.postMessage((told = message));
  }
}, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
parentPort.postMessage('ready');
`;

export class BackgroundCheckpointer {
  private stopping = false;
  private readonly exited: Promise<void>;

  private constructor(
    private readonly db: Database.Database,
    private readonly worker: Worker,
    onProblem: (message: string) => void,
  ) {
    const autoCheckpoint = (pages: number): void => {
      if (this.stopping || !db.open) return;
      try {
        db.pragma(`wal_autocheckpoint = ${pages}`);
      } catch (err) {
        onProblem(`setting wal_autocheckpoint failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    };
    worker.on('message', (m: unknown) => {
      if (m === 'ready') autoCheckpoint(FALLBACK_PAGES);
      else onProblem(`background checkpoint failed: ${String(m)}`);
    });
    worker.on('error', (err) => onProblem(`the checkpoint worker failed: ${err.message}`));
    this.exited = new Promise((resolve) =>
      worker.once('exit', () => {
        // the connection checkpoints for itself again (unless it is being closed)
        autoCheckpoint(AUTO_PAGES);
        resolve();
      }),
    );
  }

  /** Starts the worker for the database `file` open on `db`; the connection checkpoints only past FALLBACK_PAGES once the worker runs. */
  static start(db: Database.Database, file: string, everyMs: number, onProblem: (message: string) => void): BackgroundCheckpointer {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    // none of the server's own flags (a loader, --cpu-prof): the worker is plain CommonJS
    const worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], workerData: { driver, file, everyMs } });
    // the worker does not keep the process alive (the store's close stops it)
    worker.unref();
    return new BackgroundCheckpointer(db, worker, onProblem);
  }

  /** Stops the worker once its connection is closed (before the store's own close); one that does not stop within `graceMs` is terminated. */
  async stop(graceMs = 5000): Promise<void> {
    this.stopping = true;
    // held alive until the worker has closed its connection
    this.worker.ref();
    this.worker.postMessage('close');
    const late = setTimeout(() => void this.worker.terminate(), graceMs);
    await this.exited;
    clearTimeout(late);
  }
}
