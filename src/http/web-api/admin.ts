/**
 * The operator's page (docs/accounts.md "The operator's page", docs/web-api.md "Admin"): the
 * users, searched and paged, and what an operator does to one (disable, enable, verify, reset the
 * password, remove). Only the admin account itself may: a login with the admin right, by its
 * password (a web session or username/password), not an API token (a token is given to a tool for
 * its rights, and the admin right is no right a token carries). Everyone else gets 403
 * `VTS_ERR_FORBIDDEN`. The right is read from the database at each call, so taking it away
 * (`vts user admin NAME off`) takes effect at once. The right itself is given on the command line
 * only: a stolen admin session cannot make more admins.
 */
import { randomBytes } from 'node:crypto';
import { userAccount } from '../../auth/login-guard.js';
import { hashPassword } from '../../auth/password.js';
import type { AuditAction, AuditVia } from '../../auth/audit-log.js';
import { isVtsError } from '../../errors.js';
import type { Owner } from '../../store/store.js';
import type { ApiCall, ApiRoute } from '../api-call.js';
import { clientAddress } from '../params.js';
import { sendError, status } from '../reply.js';
import { badInput, sendOrdered } from './sessions-common.js';

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 200;

/** The admin account making the call, or null when the caller may not (the answer is sent: 403). */
export async function operator(call: ApiCall): Promise<Owner | null> {
  const { principal } = call;
  const owner = principal.tokenHash ? undefined : await call.ctx.store.getOwnerById(principal.ownerId);
  if (owner?.admin && !owner.disabled) return owner;
  sendError(call.reply, { code: 'VTS_ERR_FORBIDDEN', message: "the operator's page needs the admin account itself (not an API token)" });
  return null;
}

/** Through what the call came: the dashboard (a web session) or another client. */
export const viaOf = (call: ApiCall): AuditVia => (call.principal.session?.csrf ? 'web' : 'api');

/** Records an operator's action on `target`. */
export function recordAdmin(call: ApiCall, op: Owner, action: AuditAction, target: string, detail: Record<string, string | number | boolean> = {}): Promise<void> {
  return call.ctx.audit.record({ action, actor: op.name, via: viaOf(call), target, detail: { ...detail, client: clientAddress(call.req) } });
}

export interface Paging {
  search: string;
  limit: number;
  offset: number;
}

/** `?q=` (at most 100 characters), `?limit=` (1–200, 50 by default), `?offset=`; a message for a bad one. */
export function paging(params: Record<string, string>): Paging | string {
  const search = (params.q ?? '').trim();
  if (search.length > 100) return 'q: at most 100 characters';
  const limit = params.limit === undefined || params.limit === '' ? DEFAULT_PAGE : /^\d{1,4}$/.test(params.limit) ? Number(params.limit) : NaN;
  if (!(limit >= 1 && limit <= MAX_PAGE)) return `limit: 1 to ${MAX_PAGE}`;
  const offset = params.offset === undefined || params.offset === '' ? 0 : /^\d{1,9}$/.test(params.offset) ? Number(params.offset) : NaN;
  if (!(offset >= 0)) return 'offset: a count';
  return { search, limit, offset };
}

/** `GET /api/admin/users`: `{total, limit, offset, users}`, ordered by name. */
export const listUsers: ApiRoute = {
  async handler(call) {
    if (!(await operator(call))) return;
    const page = paging(call.params);
    if (typeof page === 'string') return badInput(call, page);
    const { total, rows } = await call.ctx.store.admin.users(page);
    const signIns = await call.ctx.store.audit.lastSignIns(rows.map((u) => u.name));
    const users = rows.map((u) => ({
      name: u.name,
      email: u.email,
      verified: u.verified,
      disabled: u.disabled,
      admin: u.admin,
      totpEnabled: u.totpEnabled,
      created: u.created,
      vehicles: u.vehicles,
      lastSignIn: signIns.get(u.name) ?? null,
    }));
    return sendOrdered(call.reply, 200, { total, limit: page.limit, offset: page.offset, users });
  },
};

const ACTIONS = ['disable', 'enable', 'verify', 'reset-password'] as const;
type UserAction = (typeof ACTIONS)[number];
const isAction = (x: string | undefined): x is UserAction => (ACTIONS as readonly string[]).includes(x ?? '');

/** A new password shown once: 20 characters of a-z and 2-9 (no 0/o, 1/l), about 100 bits. */
function newPassword(): string {
  const letters = 'abcdefghijkmnpqrstuvwxyz23456789';
  return [...randomBytes(20)].map((b) => letters[b % 32]).join('');
}

/** Ends what a user has open: its sessions on every node and its live connections (MP apps, MQTT). */
async function endEverything(call: ApiCall, user: Owner): Promise<void> {
  await call.ctx.sessions.endOwnerSessions(user.id);
  call.ctx.admin.disconnectUser(user.id, user.name);
}

/** `POST /api/admin/users/{name}/disable|enable|verify|reset-password`. */
export const userAction: ApiRoute = {
  async handler(call) {
    const op = await operator(call);
    if (!op) return;
    const [, name = '', action] = call.args;
    if (!isAction(action) || call.args.length !== 3) return sendError(call.reply, { code: 'VTS_ERR_NOT_FOUND', message: `no such action: ${ACTIONS.join(', ')}` });
    const { store } = call.ctx;
    const user = await store.getOwnerByName(name);
    if (!user) return sendError(call.reply, { code: 'VTS_ERR_UNKNOWN_USER', message: `no such user: ${name}` });
    if (action === 'disable') {
      if (user.id === op.id) return badInput(call, 'an operator cannot disable the own account');
      await store.setOwnerFlags(user.name, { disabled: true });
      await endEverything(call, user);
      await recordAdmin(call, op, 'user.disable', user.name);
      return status(call.reply, 204).send();
    }
    if (action === 'enable') {
      await store.setOwnerFlags(user.name, { disabled: false });
      await recordAdmin(call, op, 'user.enable', user.name);
      return status(call.reply, 204).send();
    }
    if (action === 'verify') {
      await store.setOwnerFlags(user.name, { verified: true });
      await recordAdmin(call, op, 'user.verify', user.name);
      return status(call.reply, 204).send();
    }
    // reset-password: a new password, shown once; the user's sessions and connections end
    const password = newPassword();
    await store.setOwnerPassword(user.name, await hashPassword(password));
    call.ctx.guard.throttle.forget(userAccount(user.name));
    await endEverything(call, user);
    await recordAdmin(call, op, 'password.reset', user.name, { by: 'operator' });
    return sendOrdered(call.reply, 200, { user: user.name, password });
  },
};

/**
 * `DELETE /api/admin/users/{name}`: refused (409 `VTS_ERR_USER_HAS_VEHICLES`) while the user owns
 * vehicles, unless `?vehicles=remove` (they go too, with all their data, as `vts user remove
 * --with-vehicles`). An operator cannot remove the own account.
 */
export const removeUser: ApiRoute = {
  async handler(call) {
    const op = await operator(call);
    if (!op) return;
    const [, name = ''] = call.args;
    if (call.args.length !== 2) return sendError(call.reply, { code: 'VTS_ERR_NOT_FOUND', message: 'no such call' });
    const withVehicles = call.params.vehicles === 'remove';
    if (call.params.vehicles !== undefined && !withVehicles) return badInput(call, 'vehicles: remove, or leave it out');
    const { store } = call.ctx;
    const user = await store.getOwnerByName(name);
    if (!user) return sendError(call.reply, { code: 'VTS_ERR_UNKNOWN_USER', message: `no such user: ${name}` });
    if (user.id === op.id) return badInput(call, 'an operator cannot remove the own account');
    const vehicles = (await store.listVehicles(user.id)).map((v) => v.id);
    if (vehicles.length > 0 && !withVehicles) {
      return sendError(call.reply, { code: 'VTS_ERR_USER_HAS_VEHICLES', message: `${user.name} owns ${vehicles.length} vehicle(s): ${vehicles.join(', ')} (?vehicles=remove removes them too, with their data)` });
    }
    await endEverything(call, user);
    for (const id of vehicles) {
      await store.removeVehicle(id);
      await recordAdmin(call, op, 'vehicle.remove', id, { owner: user.name });
    }
    try {
      if (!(await store.removeOwner(user.name))) return sendError(call.reply, { code: 'VTS_ERR_UNKNOWN_USER', message: `no such user: ${name}` });
    } catch (err) {
      // a vehicle added meanwhile
      if (isVtsError(err, 'VTS_ERR_USER_HAS_VEHICLES')) return sendError(call.reply, { code: 'VTS_ERR_USER_HAS_VEHICLES', message: err.message });
      throw err;
    }
    await recordAdmin(call, op, 'user.remove', user.name, { vehicles: vehicles.length });
    return sendOrdered(call.reply, 200, { user: user.name, vehicles });
  },
};
