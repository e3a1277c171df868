/** `vts user add|passwd|list|remove|admin`: the accounts (owners) of the server. */
import type { Command } from 'commander';
import { recordCli } from '../auth/audit-log.js';
import { auditCli } from '../util/audit.js';
import { resolveOptions } from '../util/config.js';
import { hashPassword } from '../auth/password.js';
import { MIN_PASSWORD_LENGTH } from '../core/auth/password-rule.js';
import { normaliseRights } from '../core/auth/rights.js';
import { formatUtc } from '../core/time.js';
import { VtsError } from '../errors.js';
import {
  addStoreOptions,
  formatTable,
  passwordFromOption,
  requireStoreOf,
  say,
  validateUserName,
  validateUserPassword,
  withStore,
  type StoreCommandOptions,
} from './shared-options.js';

interface PasswordOptions extends StoreCommandOptions {
  password?: string;
}

interface AddOptions extends PasswordOptions {
  rights: string;
  admin?: boolean;
}

interface RemoveOptions extends StoreCommandOptions {
  withVehicles?: boolean;
}

interface ListOptions extends StoreCommandOptions {
  json?: boolean;
}

function validateRights(text: string): string {
  const rights = normaliseRights(text);
  if (rights === '') throw new VtsError('VTS_ERR_INVALID_INPUT', 'empty rights list (use "none" for no rights)');
  if (!/^(\*|[A-Za-z0-9_.*-]+(,[A-Za-z0-9_.*-]+)*)$/.test(rights)) {
    throw new VtsError('VTS_ERR_INVALID_INPUT', `rights must be "*" or a comma list of names: ${JSON.stringify(text)}`);
  }
  return rights;
}

async function readPassword(value: string | undefined): Promise<string> {
  return validateUserPassword(await passwordFromOption(value, 'password'));
}

export function registerUser(program: Command): void {
  const user = program.command('user').description('manage user accounts (vehicle owners)');

  const add = user
    .command('add')
    .description('add a user (creates the database when the data dir has none)')
    .argument('<name>', 'user name: 1-60 characters of A-Z a-z 0-9 . _ @ -')
    .requiredOption('--password <password>', `the password (${MIN_PASSWORD_LENGTH} characters at least); "-" reads the first line of stdin`)
    .option('--rights <list>', 'rights of the account password: "*" or a comma list', '*')
    .option('--admin', "give the operator's right (the dashboard's Admin section, /api/admin)");
  addStoreOptions(add).action(async (nameArg: string) => {
    const o = resolveOptions<AddOptions>(add);
    const name = validateUserName(nameArg);
    const rights = validateRights(o.rights);
    const admin = o.admin === true;
    const hash = await hashPassword(await readPassword(o.password));
    // the first user of a new server may create its database (said once on stderr)
    await withStore(
      o,
      async (store) => {
        await store.addOwner(name, hash, rights);
        if (admin) await store.setOwnerFlags(name, { admin: true });
        await recordCli(store, 'user.add', name, { rights, admin });
      },
      { create: true },
    );
    auditCli('user.add', admin ? { user: name, rights, admin } : { user: name, rights });
    say(`user ${name} added${admin ? ' (admin)' : ''}`);
  });

  const passwd = user
    .command('passwd')
    .description("change a user's password (read from stdin when --password is not given)")
    .argument('<name>', 'user name')
    .option('--password <password>', `the new password (${MIN_PASSWORD_LENGTH} characters at least); "-" reads the first line of stdin`);
  addStoreOptions(passwd).action(async (nameArg: string) => {
    const o = resolveOptions<PasswordOptions>(passwd);
    const name = validateUserName(nameArg);
    await requireStoreOf(o); // before the password is asked for
    const hash = await hashPassword(await readPassword(o.password));
    const found = await withStore(o, async (store) => {
      const changed = await store.setOwnerPassword(name, hash);
      if (changed) await recordCli(store, 'password.change', name);
      return changed;
    });
    if (!found) throw new VtsError('VTS_ERR_UNKNOWN_USER', name);
    auditCli('user.password', { user: name });
    say(`password of user ${name} changed`);
  });

  const list = user
    .command('list')
    .description('list the users (created times in UTC)')
    .option('--json', 'print a JSON array');
  addStoreOptions(list).action(async () => {
    const o = resolveOptions<ListOptions>(list);
    const rows = await withStore(o, async (store) => {
      const [owners, vehicles] = await Promise.all([store.listOwners(), store.listVehicles()]);
      const counts = new Map<number, number>();
      for (const v of vehicles) counts.set(v.ownerId, (counts.get(v.ownerId) ?? 0) + 1);
      return owners.map((u) => ({
        name: u.name,
        rights: u.rights,
        admin: u.admin,
        disabled: u.disabled,
        vehicles: counts.get(u.id) ?? 0,
        created: formatUtc(u.created),
      }));
    });
    if (o.json) {
      process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
    } else {
      process.stdout.write(
        formatTable(
          ['NAME', 'RIGHTS', 'ADMIN', 'DISABLED', 'VEHICLES', 'CREATED (UTC)'],
          rows.map((r) => [r.name, r.rights, r.admin ? 'yes' : '-', r.disabled ? 'yes' : '-', String(r.vehicles), r.created]),
        ),
      );
    }
  });

  const remove = user
    .command('remove')
    .description('remove a user (with its API tokens and push subscriptions); one that owns vehicles only with --with-vehicles')
    .argument('<name>', 'user name')
    .option('--with-vehicles', 'remove its vehicles too, with all their data (messages, history, subscriptions)');
  addStoreOptions(remove).action(async (nameArg: string) => {
    const o = resolveOptions<RemoveOptions>(remove);
    const name = validateUserName(nameArg);
    const { found, vehicles } = await withStore(o, async (store) => {
      const owner = await store.getOwnerByName(name);
      if (!owner) return { found: false, vehicles: [] as string[] };
      const ids = (await store.listVehicles(owner.id)).map((v) => v.id);
      if (ids.length > 0 && !o.withVehicles) {
        throw new VtsError(
          'VTS_ERR_USER_HAS_VEHICLES',
          `${owner.name} owns ${ids.length} vehicle${ids.length === 1 ? '' : 's'} (${ids.join(', ')}): vts user remove ${owner.name} --with-vehicles removes ${ids.length === 1 ? 'it' : 'them'} too, with ${ids.length === 1 ? 'its' : 'their'} data`,
        );
      }
      for (const id of ids) {
        await store.removeVehicle(id);
        await recordCli(store, 'vehicle.remove', id, { owner: owner.name });
      }
      const removed = await store.removeOwner(owner.name);
      if (removed) await recordCli(store, 'user.remove', owner.name, { vehicles: ids.length });
      return { found: removed, vehicles: ids };
    });
    if (!found) throw new VtsError('VTS_ERR_UNKNOWN_USER', name);
    for (const id of vehicles) auditCli('vehicle.remove', { vehicle: id });
    auditCli('user.remove', { user: name });
    say(vehicles.length > 0 ? `user ${name} removed, with ${vehicles.length === 1 ? 'vehicle' : 'vehicles'} ${vehicles.join(', ')}` : `user ${name} removed`);
  });

  const admin = user
    .command('admin')
    .description("give (on) or take (off) the operator's right: the dashboard's Admin section and /api/admin")
    .argument('<name>', 'user name')
    .argument('<on|off>', 'on or off');
  addStoreOptions(admin).action(async (nameArg: string, state: string) => {
    const o = resolveOptions<StoreCommandOptions>(admin);
    const name = validateUserName(nameArg);
    if (state !== 'on' && state !== 'off') throw new VtsError('VTS_ERR_INVALID_INPUT', `on or off, not ${JSON.stringify(state)}`);
    const on = state === 'on';
    const found = await withStore(o, async (store) => {
      const owner = await store.getOwnerByName(name);
      if (!owner || !(await store.setOwnerFlags(owner.name, { admin: on }))) return null;
      await recordCli(store, on ? 'user.admin_on' : 'user.admin_off', owner.name);
      return owner.name;
    });
    if (found === null) throw new VtsError('VTS_ERR_UNKNOWN_USER', name);
    auditCli(on ? 'user.admin_on' : 'user.admin_off', { user: found });
    say(on ? `user ${found} is an admin now` : `user ${found} is no admin now`);
  });
}
