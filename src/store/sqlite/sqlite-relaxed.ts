/**
 * A write on the store's connection committed with synchronous=NORMAL instead of the connection's
 * FULL: in WAL mode it is in the operating system's hands at once (a kill -9 loses nothing) and
 * does not wait for the disk on the event loop; a power loss may lose it. For writes that can be
 * worked out again or that are safe to lose: the write-behind batches, the history purge, the
 * drives trackers' commits, the push outbox's claims, an alert engine's state between firings.
 */
import type Database from 'better-sqlite3';

export function relaxedCommit<T>(db: Database.Database, fn: () => T): T {
  // exec, not a prepared statement: SQLite applies this pragma when it compiles it
  db.exec('PRAGMA synchronous = NORMAL');
  try {
    return fn();
  } finally {
    db.exec('PRAGMA synchronous = FULL');
  }
}
