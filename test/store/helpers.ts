/**
 * Shared set-up of the store tests: a fresh database per test, removed afterwards. SQLite in a
 * temporary data directory, or, with VTS_TEST_DATABASE=postgres://…, a schema of its own in that
 * PostgreSQL database (test/support/postgres.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { openStore, type OpenStoreOptions } from '../../src/store/open.js';
import type { Owner, Store, StoreOptions, Vehicle } from '../../src/store/store.js';
import { TEST_DATABASE, freshSchema } from '../support/postgres.js';

export { SQLITE_ONLY } from '../support/postgres.js';

/** A fresh temporary directory, removed when the test ends. */
export function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'vts-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface Place {
  /** The data dir (the SQLite database is there unless `database` is set). */
  dir: string;
  /** The PostgreSQL URL (a schema of this test), undefined on SQLite. */
  database: string | undefined;
  /** Opens a store on this database (one more is "another process"); closed, if still open, when the test ends. */
  open(opts?: OpenStoreOptions): Promise<Store>;
}

/** A fresh database for the test (nothing opened yet); its stores are closed and it is removed when the test ends. */
export function freshPlace(t: TestContext): Place {
  const dir = mkdtempSync(join(tmpdir(), 'vts-'));
  const schema = TEST_DATABASE ? freshSchema(TEST_DATABASE) : undefined;
  const stores: Store[] = [];
  t.after(async () => {
    for (const store of stores) await store.close().catch(() => undefined);
    await schema?.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  const database = schema?.url;
  return {
    dir,
    database,
    open: async (opts) => {
      const store = await openStore(dir, { ...opts, database });
      stores.push(store);
      return store;
    },
  };
}

export interface Fixture extends Place {
  store: Store;
}

/** A store on a fresh database, closed (if still open) and removed when the test ends. */
export async function freshStore(t: TestContext, opts: StoreOptions = {}): Promise<Fixture> {
  const place = freshPlace(t);
  return { ...place, store: await place.open(opts) };
}

/** An owner `demo` with one vehicle `DEMO1`. */
export async function seed(store: Store, vehicleId = 'DEMO1'): Promise<{ owner: Owner; vehicle: Vehicle }> {
  const owner = (await store.getOwnerByName('demo')) ?? (await store.addOwner('demo', 'hash', '*'));
  const vehicle = await store.addVehicle({ id: vehicleId, ownerId: owner.id, name: 'Demo car', carPassword: 'secret' });
  return { owner, vehicle };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export const SQLITE_FILE = 'vts.sqlite';
