/**
 * `vts sessions rebuild [<vehicle>…]`: recomputes the drives and charges of the vehicles (all when
 * none is named) from their stored history and firmware logs (src/drives/rebuild.ts): after
 * `vts import`, after a server ran with `--sessions off`, or after the rules changed. Idempotent;
 * sessions older than the history kept stay. Safe while the server runs: its recorder sees that
 * the checkpoint moved on and continues from it.
 */
import type { Command } from 'commander';
import { count } from '../core/count.js';
import { TRACKED_TYPES } from '../core/drives/tracker.js';
import { rebuildVehicle } from '../drives/rebuild.js';
import { VtsError } from '../errors.js';
import { Progress } from '../import/progress.js';
import type { Store } from '../store/store.js';
import { addStoreOptions, requireStoreOf, say, validateVehicleId, withStore, type StoreCommandOptions } from './shared-options.js';

export async function rebuildSessions(store: Store, ids: readonly string[], err: NodeJS.WriteStream = process.stderr): Promise<{ drives: number; charges: number; records: number }> {
  const vehicles = ids.length > 0 ? ids : (await store.listVehicles()).map((v) => v.id);
  for (const id of ids) if (!(await store.getVehicle(id))) throw new VtsError('VTS_ERR_UNKNOWN_VEHICLE', `no vehicle ${id}`);
  const progress = new Progress({ write: (t) => err.write(t), isTTY: err.isTTY, columns: err.columns });
  const total = { drives: 0, charges: 0, records: 0 };
  const now = Math.floor(Date.now() / 1000);
  for (const id of vehicles) {
    progress.start(id, await store.countHistorical(id, TRACKED_TYPES));
    let seen = 0;
    const done = await rebuildVehicle(store, id, now, (records) => {
      progress.advance(records - seen);
      seen = records;
    });
    progress.finish();
    if (!done) continue;
    total.drives += done.drives;
    total.charges += done.charges;
    total.records += done.records;
  }
  return total;
}

export function registerSessions(program: Command): void {
  const sessions = program.command('sessions').description('drives and charges computed from the car data');
  const rebuild = sessions
    .command('rebuild')
    .description('recompute the drives and charges of the vehicles (all when none is named) from their stored history and firmware logs')
    .argument('[vehicles...]', 'vehicle ids');
  addStoreOptions(rebuild);
  rebuild.action(async (vehicles: string[], o: StoreCommandOptions) => {
    const ids = vehicles.map(validateVehicleId);
    await requireStoreOf(o);
    const total = await withStore(o, (store) => rebuildSessions(store, ids));
    say(`rebuilt ${count(total.drives, 'drive')} and ${count(total.charges, 'charge')} from ${count(total.records, 'record')}`);
  });
}
