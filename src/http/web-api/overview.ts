/**
 * `GET /api/overview` (docs/web-api.md "Overview"): the caller's vehicles with their state, own ones
 * and those shared with the caller (`access` owner, control or view; `owner` their owner's name).
 */
import { splitFields } from '../../core/records/fields.js';
import type { JsonValue } from '../../core/records/json.js';
import { visibleVehicles } from '../../auth/vehicle-access.js';
import type { ApiRoute } from '../api-call.js';
import { sendJson } from '../reply.js';

function numberOrNull(text: string | undefined): number | null {
  if (text === undefined || text.trim() === '') return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

export const overview: ApiRoute = {
  async handler({ ctx, reply, principal }) {
    const vehicles = (await visibleVehicles(ctx.store, principal.ownerId)).sort((a, b) => (a.vehicle.id < b.vehicle.id ? -1 : 1));
    const now = ctx.hub.seconds();
    const rows: JsonValue[] = [];
    for (const { vehicle: v, access } of vehicles) {
      const counts = ctx.hub.counts(v.id);
      const s = (await ctx.store.getCarMessages(v.id)).find((m) => m.code === 'S' && !m.paranoid);
      const f = s ? splitFields(s.data) : [];
      const chargeState = f[4] !== undefined && f[4] !== '' ? f[4] : null;
      rows.push({
        age: v.lastUpdate === null ? null : Math.max(0, now - v.lastUpdate),
        apps: counts.apps,
        batches: counts.batches,
        chargeState,
        charging: chargeState === 'charging' || chargeState === 'topoff',
        access,
        id: v.id,
        idealRange: numberOrNull(f[6]),
        lastUpdate: v.lastUpdate,
        link: ctx.hub.linkKind(v.id),
        name: v.name,
        online: counts.net > 0,
        owner: v.ownerName,
        range: numberOrNull(f[7]),
        soc: numberOrNull(f[0]),
        units: f[1] === 'M' ? 'M' : f[1] === 'K' ? 'K' : null,
      });
    }
    return sendJson(reply, 200, rows);
  },
};
