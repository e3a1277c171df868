/** Shared set-up of the store tests: a fresh data directory per test, removed afterwards. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { openStore } from '../../src/store/open.js';
import type { Owner, Store, StoreOptions, Vehicle } from '../../src/store/store.js';

/** A fresh temporary directory, removed when the test ends. */
export function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'vts-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface Fixture {
  dir: string;
  store: Store;
}

/** A store on a fresh data directory, closed (if still open) and removed when the test ends. */
export async function freshStore(t: TestContext, opts: StoreOptions = {}): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), 'vts-'));
  const store = await openStore(dir, opts);
  t.after(async () => {
    await store.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, store };
}

/** An owner `demo` with one vehicle `DEMO1`. */
export async function seed(store: Store, vehicleId = 'DEMO1'): Promise<{ owner: Owner; vehicle: Vehicle }> {
  const owner = (await store.getOwnerByName('demo')) ?? (await store.addOwner('demo', 'hash', '*'));
  const vehicle = await store.addVehicle({ id: vehicleId, ownerId: owner.id, name: 'Demo car', carPassword: 'secret' });
  return { owner, vehicle };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export const SQLITE_FILE = 'vts.sqlite';
