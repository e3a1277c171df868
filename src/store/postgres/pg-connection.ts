/**
 * The PostgreSQL store's way to the database: a pool of connections (replaced when one of them
 * goes silent), the direct writes run one at a time in call order, reads that wait for the direct
 * writes asked before them, transactions on one connection, and every outcome told to the outage
 * watch (src/store/outage.ts). The store's parts (owners, vehicles, records, push, import) reach
 * the database only through PgAccess.
 */
import type { Pool, PoolClient, QueryResult, QueryResultRow } from 'pg';
import type { OutageWatch } from '../outage.js';
import type { WriteBatch } from '../write-batch.js';
import { commitBatch } from './pg-batch.js';
import { describePgError, pgSilent, pgUnavailable, type PgTarget } from './pg-errors.js';

/** What the PgStore lends its parts. */
export interface PgAccess {
  /** Throws VTS_ERR_STORE_CLOSED once the store is closed. */
  open(): void;
  /** The rows of a read, once the direct writes asked before it are done. */
  read<R extends QueryResultRow>(sql: string, values: unknown[]): Promise<R[]>;
  /** One statement as a direct write. */
  change<R extends QueryResultRow>(sql: string, values: unknown[]): Promise<QueryResult<R>>;
  /** `fn` in one transaction on one connection, as a direct write. */
  transaction<T>(fn: (client: PoolClient) => Promise<T>): Promise<T>;
}

/** How many rows a direct write changed. */
export async function changedRows(pg: PgAccess, sql: string, values: unknown[]): Promise<number> {
  return (await pg.change(sql, values)).rowCount ?? 0;
}

const RESOLVED: Promise<void> = Promise.resolve();

export class PgConnection implements PgAccess {
  /** The tail of the direct writes (never rejects), and how many are asked and not done. */
  private writes: Promise<void> = RESOLVED;
  private writing = 0;
  /** The pool in use: replaced by a new one when one of its connections goes silent. */
  private pool: Pool;

  /**
   * `open` throws once the store is closed, `closed` tells whether it is closing (no new pool
   * then); `watch` is told of every operation's outcome.
   */
  constructor(
    private readonly newPool: () => Pool,
    private readonly target: PgTarget,
    private readonly watch: OutageWatch,
    readonly open: () => void,
    private readonly closed: () => boolean,
  ) {
    this.pool = newPool();
  }

  /** Commits one write-behind batch (src/store/postgres/pg-batch.ts). */
  commit(batch: WriteBatch): Promise<void> {
    const pool = this.pool;
    return this.watched(pool, commitBatch(pool, batch));
  }

  /** Ends the pool once the direct writes are done. */
  async end(): Promise<void> {
    await this.writes;
    await this.pool.end();
  }

  /**
   * `done` (an operation on `pool`), its outcome told to the outage watch (an error of the
   * database's unavailability is marked there). A connection of `pool` that did not answer in
   * time (pg closed it) makes its siblings suspect: the ones of the same moment are likely silent
   * too (an address that moved, a partition), and each would cost another timeout. The pool is
   * replaced: its idle connections are closed, its busy ones when they are given back.
   */
  private watched<T>(pool: Pool, done: Promise<T>): Promise<T> {
    return done.then(
      (value) => {
        this.watch.succeeded();
        return value;
      },
      (err: unknown) => {
        if (pgUnavailable(err)) this.watch.failed(err);
        if (pgSilent(err) && pool === this.pool && !this.closed()) {
          this.pool = this.newPool();
          pool.end().catch(() => undefined);
        }
        throw err;
      },
    );
  }

  private async query<R extends QueryResultRow>(sql: string, values: unknown[]): Promise<QueryResult<R>> {
    try {
      const pool = this.pool;
      return await this.watched(pool, pool.query<R>(sql, values));
    } catch (err) {
      throw describePgError(err, this.target);
    }
  }

  /** The rows of a read, once the direct writes asked before it are done (read-your-writes). */
  async read<R extends QueryResultRow>(sql: string, values: unknown[] = []): Promise<R[]> {
    this.open();
    if (this.writing > 0) {
      await this.writes;
      this.open();
    }
    return (await this.query<R>(sql, values)).rows;
  }

  /**
   * Runs a direct write after the ones asked before it, as SQLite applies them: one at a time, in
   * call order (ids such as the command audit's increase in call order, and a read waits for the
   * writes asked before it).
   */
  private write<T>(fn: () => Promise<T>): Promise<T> {
    this.open();
    this.writing++;
    const run = this.writes.then(fn);
    this.writes = run.then(
      () => void this.writing--,
      () => void this.writing--,
    );
    return run;
  }

  /** One statement as a direct write. */
  change<R extends QueryResultRow>(sql: string, values: unknown[]): Promise<QueryResult<R>> {
    return this.write(() => this.query<R>(sql, values));
  }

  /** Runs `fn` in one transaction on one connection, as a direct write. */
  transaction<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
    return this.write(() => {
      const pool = this.pool;
      return this.watched(pool, this.inTransaction(pool, fn));
    });
  }

  private async inTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect().catch((err: unknown) => Promise.reject(describePgError(err, this.target)));
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch((e: Error) => (broken = e));
      throw describePgError(err, this.target);
    } finally {
      client.release(broken);
    }
  }
}
