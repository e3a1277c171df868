/** `GET /api/overview` (docs/web-api.md "Overview"): the caller's vehicles with their state. */
import { splitFields } from '../../core/records/fields.js';
import type { JsonValue } from '../../core/records/json.js';
import type { ApiRoute } from '../api-call.js';
import { sendJson } from '../reply.js';

function numberOrNull(text: string | undefined): number | null {
  if (text === undefined || text.trim() === '') return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

export const overview: ApiRoute = {
  async handler({ ctx, reply, principal }) {
    const vehicles = await ctx.store.listVehicles(principal.ownerId);
    const now = ctx.hub.seconds();
    const rows: JsonValue[] = [];
    for (const v of vehicles) {
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
        id: v.id,
        idealRange: numberOrNull(f[6]),
        lastUpdate: v.lastUpdate,
        link: ctx.hub.linkKind(v.id),
        name: v.name,
        online: counts.net > 0,
        range: numberOrNull(f[7]),
        soc: numberOrNull(f[0]),
        units: f[1] === 'M' ? 'M' : f[1] === 'K' ? 'K' : null,
      });
    }
    return sendJson(reply, 200, rows);
  },
};
