/** `vts vehicle add|list|remove`: the vehicles (cars and peer servers) of the server. */
import type { Command } from 'commander';
import { auditCli } from '../util/audit.js';
import { resolveOptions } from '../util/config.js';
import { formatUtc } from '../core/time.js';
import { VtsError } from '../errors.js';
import type { VehicleType } from '../store/store.js';
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
  owner: string;
  password: string;
  name: string;
  type: string;
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
    .description('add a vehicle')
    .argument('<id>', 'vehicle id: 1-32 characters of A-Z a-z 0-9 . _ - (stored upper-cased)')
    .requiredOption('--owner <name>', 'the user owning it')
    .requiredOption('--password <password>', 'the car (server) password; "-" reads the first line of stdin')
    .option('--name <text>', 'display name', '')
    .option('--type <type>', 'CAR, or SERVER for a peer server', 'CAR');
  addStoreOptions(add).action(async (idArg: string) => {
    const o = resolveOptions<AddOptions>(add);
    const id = validateVehicleId(idArg);
    const ownerName = validateUserName(o.owner);
    const name = validateVehicleName(o.name);
    const type = validateType(o.type);
    await requireStoreOf(o); // before the password is asked for (a new database has no owner anyway)
    const carPassword = validateCarPassword(await passwordFromOption(o.password, 'car password'));
    await withStore(o, async (store) => {
      const owner = await store.getOwnerByName(ownerName);
      if (!owner) throw new VtsError('VTS_ERR_UNKNOWN_USER', ownerName);
      await store.addVehicle({ id, ownerId: owner.id, name, carPassword, type });
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
    const found = await withStore(o, (store) => store.removeVehicle(id));
    if (!found) throw new VtsError('VTS_ERR_UNKNOWN_VEHICLE', id);
    auditCli('vehicle.remove', { vehicle: id });
    say(`vehicle ${id} removed`);
  });
}
