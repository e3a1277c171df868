/** `GET /api/historical/<VEHICLEID>[/<RECORDTYPE>]` with `since` (http-api-v2.md §4.12). */
import { historicalRecordRows, historicalSummaryRows } from '../../core/records/lists.js';
import { parseSince } from '../../core/time.js';
import { badRequest, forbidden, sendJson } from '../reply.js';
import { ownVehicle, type ApiRoute } from './call.js';

export const historical: ApiRoute = {
  async handler(call) {
    const { ctx, reply, args, params } = call;
    const vehicle = await ownVehicle(call);
    if (!vehicle) return forbidden(reply);
    const since = params.since === undefined || params.since === '' ? -1 : parseSince(params.since);
    if (since === null) return badRequest(reply, 'Invalid since: use YYYY-MM-DD or YYYY-MM-DD HH:MM:SS');
    const type = args[1];
    if (type === undefined || type === '') {
      return sendJson(reply, 200, historicalSummaryRows(await ctx.store.summarizeHistorical(vehicle.id, since)));
    }
    return sendJson(reply, 200, historicalRecordRows(await ctx.store.getHistorical(vehicle.id, type, since)));
  },
};
