/** `vts vehicle add|list|remove`: the vehicles (cars and peer servers) of the server. */
import type { Command } from 'commander';
import { recordCli } from '../auth/audit-log.js';
import { auditCli } from '../util/audit.js';
import { resolveOptions } from '../util/config.js';
import { formatUtc } from '../core/time.js';
import { VtsError } from '../errors.js';
import type { VehicleType } from '../store/store.js';
import { addVehiclesFromCsv } from './vehicle-csv.js';
import {
  addStoreOptions,
  formatTable,
  passwordFromOption,
  requireStoreOf,
  say,
  validateCarPassword,
  validateUserName,
  validateVehicleId,
  validateVehicleName,
  withStore,
  type StoreCommandOptions,
} from './shared-options.js';

interface AddOptions extends StoreCommandOptions {
  owner?: string;
  password?: string;
  name: string;
  type: string;
  fromCsv?: string;
}

interface ListOptions extends StoreCommandOptions {
  owner?: string;
  json?: boolean;
}

function validateType(text: string): VehicleType {
  const t = text.toUpperCase();
  if (t !== 'CAR' && t !== 'SERVER') {
    throw new VtsError('VTS_ERR_INVALID_INPUT', `vehicle type must be CAR or SERVER: ${JSON.stringify(text)}`);
  }
  return t;
}

export function registerVehicle(program: Command): void {
  const vehicle = program.command('vehicle').description('manage vehicles');

  const add = vehicle
    .command('add')
    .description('add a vehicle, or many from a CSV file (--from-csv)')
    .argument('[id]', 'vehicle id: 1-32 characters of A-Z a-z 0-9 . _ - (stored upper-cased)')
    .option('--owner <name>', 'the user owning it (required without --from-csv)')
    .option('--password <password>', 'the car (server) password; "-" reads the first line of stdin (required without --from-csv)')
    .option('--name <text>', 'display name', '')
    .option('--type <type>', 'CAR, or SERVER for a peer server', 'CAR')
    .option(
      '--from-csv <file>',
      'add the vehicles of a CSV file ("-": stdin) with a header row naming the columns id,owner,password[,name]; a bad row is reported with its line and skipped (exit 2)',
    );
  addStoreOptions(add).action(async (idArg: string | undefined) => {
    const o = resolveOptions<AddOptions>(add);
    if (o.fromCsv !== undefined) {
      if (idArg !== undefined || o.owner !== undefined || o.password !== undefined || o.name !== '') {
        add.error('error: --from-csv takes the ids, owners, passwords and names from the file: give none of them on the command line');
      }
      const type = validateType(o.type);
      await requireStoreOf(o);
      return addVehiclesFromCsv({ ...o, fromCsv: o.fromCsv, type });
    }
    // as commander would say for a required option or argument (they are required without --from-csv)
    if (o.owner === undefined) add.error("error: required option '--owner <name>' not specified");
    if (o.password === undefined) add.error("error: required option '--password <password>' not specified");
    if (idArg === undefined) add.error("error: missing required argument 'id'");
    const id = validateVehicleId(idArg!);
    const ownerName = validateUserName(o.owner!);
    const name = validateVehicleName(o.name);
    const type = validateType(o.type);
    await requireStoreOf(o); // before the password is asked for (a new database has no owner anyway)
    const carPassword = validateCarPassword(await passwordFromOption(o.password!, 'car password'));
    await withStore(o, async (store) => {
      const owner = await store.getOwnerByName(ownerName);
      if (!owner) throw new VtsError('VTS_ERR_UNKNOWN_USER', ownerName);
      await store.addVehicle({ id, ownerId: owner.id, name, carPassword, type });
      await recordCli(store, 'vehicle.add', id, { owner: owner.name, type });
    });
    auditCli('vehicle.add', { vehicle: id, owner: ownerName, type });
    say(`vehicle ${id} added`);
  });

  const list = vehicle
    .command('list')
    .description('list the vehicles (last update in UTC)')
    .option('--owner <name>', 'only the vehicles of this user')
    .option('--json', 'print a JSON array');
  addStoreOptions(list).action(async () => {
    const o = resolveOptions<ListOptions>(list);
    const ownerName = o.owner === undefined ? undefined : validateUserName(o.owner);
    const vehicles = await withStore(o, async (store) => {
      if (ownerName === undefined) return store.listVehicles();
      const owner = await store.getOwnerByName(ownerName);
      if (!owner) throw new VtsError('VTS_ERR_UNKNOWN_USER', ownerName);
      return store.listVehicles(owner.id);
    });
    // never the car password
    const rows = vehicles.map((v) => ({
      id: v.id,
      owner: v.ownerName,
      name: v.name,
      type: v.type,
      lastUpdate: v.lastUpdate === null ? null : formatUtc(v.lastUpdate),
    }));
    if (o.json) {
      process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
    } else {
      process.stdout.write(
        formatTable(
          ['ID', 'OWNER', 'TYPE', 'LAST UPDATE (UTC)', 'NAME'],
          rows.map((r) => [r.id, r.owner, r.type, r.lastUpdate ?? '-', r.name]),
        ),
      );
    }
  });

  const remove = vehicle
    .command('remove')
    .description('remove a vehicle with all its data (messages, history, utilisation, subscriptions)')
    .argument('<id>', 'vehicle id');
  addStoreOptions(remove).action(async (idArg: string) => {
    const o = resolveOptions<StoreCommandOptions>(remove);
    const id = validateVehicleId(idArg);
    const found = await withStore(o, async (store) => {
      const removed = await store.removeVehicle(id);
      if (removed) await recordCli(store, 'vehicle.remove', id);
      return removed;
    });
    if (!found) throw new VtsError('VTS_ERR_UNKNOWN_VEHICLE', id);
    auditCli('vehicle.remove', { vehicle: id });
    say(`vehicle ${id} removed`);
  });
}
