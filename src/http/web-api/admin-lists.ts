/**
 * The operator's page, the lists beside the users (docs/web-api.md "Admin"): the vehicles with
 * their owner, link, online state, last message and traffic; the server's figures; the audit log.
 * Only the admin account itself (admin.ts `operator`).
 */
import { startOfUtcDay } from '../../core/time.js';
import type { ApiRoute } from '../api-call.js';
import { MAX_PAGE, DEFAULT_PAGE, operator, paging } from './admin.js';
import { badInput, sendOrdered } from './sessions-common.js';

/** `GET /api/admin/vehicles`: `{total, limit, offset, vehicles}`, ordered by id. */
export const listVehicles: ApiRoute = {
  async handler(call) {
    if (!(await operator(call))) return;
    const page = paging(call.params);
    if (typeof page === 'string') return badInput(call, page);
    const { store, hub } = call.ctx;
    const { total, rows } = await store.admin.vehicles(page);
    const today = startOfUtcDay(hub.seconds());
    const traffic = await store.admin.traffic(
      rows.map((v) => v.id),
      today,
      today - 29 * 86_400,
    );
    const vehicles = rows.map((v) => {
      const link = hub.linkKind(v.id);
      const t = traffic.get(v.id);
      return {
        id: v.id,
        name: v.name,
        owner: v.ownerName,
        type: v.type,
        link,
        online: link !== null,
        lastSeen: v.lastUpdate,
        trafficToday: t?.today ?? 0,
        traffic30Days: t?.month ?? 0,
      };
    });
    return sendOrdered(call.reply, 200, { total, limit: page.limit, offset: page.offset, vehicles });
  },
};

/** `GET /api/admin/server`: the connections by kind, the ingest rate, the outbox, the cluster's nodes. */
export const serverFigures: ApiRoute = {
  async handler(call) {
    if (!(await operator(call))) return;
    return sendOrdered(call.reply, 200, await call.ctx.admin.figures());
  },
};

/**
 * `GET /api/admin/audit`: `{entries, next}`, newest first; `?before=<id>` (the `next` of the page
 * before), `?limit=`, `?action=` (an action or its family: `user`), `?actor=`, `?target=`.
 */
export const listAudit: ApiRoute = {
  async handler(call) {
    if (!(await operator(call))) return;
    const p = call.params;
    const limit = p.limit === undefined || p.limit === '' ? DEFAULT_PAGE : /^\d{1,4}$/.test(p.limit) ? Number(p.limit) : NaN;
    if (!(limit >= 1 && limit <= MAX_PAGE)) return badInput(call, `limit: 1 to ${MAX_PAGE}`);
    const before = p.before === undefined || p.before === '' ? undefined : /^\d{1,15}$/.test(p.before) ? Number(p.before) : NaN;
    if (Number.isNaN(before)) return badInput(call, 'before: the id of an entry');
    for (const key of ['action', 'actor', 'target'] as const) if ((p[key] ?? '').length > 100) return badInput(call, `${key}: at most 100 characters`);
    const entries = await call.ctx.store.audit.list({
      limit,
      ...(before === undefined ? {} : { before }),
      ...(p.action ? { action: p.action } : {}),
      ...(p.actor ? { actor: p.actor } : {}),
      ...(p.target ? { target: p.target } : {}),
    });
    const next = entries.length === limit ? entries[entries.length - 1]!.id : null;
    return sendOrdered(call.reply, 200, { entries, next });
  },
};
