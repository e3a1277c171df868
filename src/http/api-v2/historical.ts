/**
 * `GET /api/historical/<VEHICLEID>[/<RECORDTYPE>]` with `since` (docs/protocol/http-api-v2.md §4.12); with
 * `format=csv` the same rows as a CSV download (src/http/records-csv.ts, shared with the custom
 * API's `/api/<service>/csv`).
 */
import { csvFilename, historicalSummaryCsv } from '../../core/records/csv.js';
import { historicalRecordRows, historicalSummaryRows } from '../../core/records/lists.js';
import { parseSince } from '../../core/time.js';
import { badRequest, forbidden, sendJson } from '../reply.js';
import { ownVehicle, type ApiRoute } from '../api-call.js';
import { sendCsv, sendRecordsCsv } from '../records-csv.js';

export const historical: ApiRoute = {
  async handler(call) {
    const { ctx, reply, args, params } = call;
    const vehicle = await ownVehicle(call, 'view');
    if (!vehicle) return forbidden(reply);
    const since = params.since === undefined || params.since === '' ? -1 : parseSince(params.since);
    if (since === null) return badRequest(reply, 'Invalid since: use YYYY-MM-DD or YYYY-MM-DD HH:MM:SS');
    const csv = params.format?.toLowerCase() === 'csv';
    const type = args[1];
    if (type === undefined || type === '') {
      const summary = await ctx.store.summarizeHistorical(vehicle.id, since);
      if (csv) return sendCsv(reply, csvFilename(vehicle.id, 'summary'), historicalSummaryCsv(vehicle.id, summary));
      return sendJson(reply, 200, historicalSummaryRows(summary));
    }
    if (csv) return sendRecordsCsv(ctx, reply, vehicle.id, [type], since, 'since');
    return sendJson(reply, 200, historicalRecordRows(await ctx.store.getHistorical(vehicle.id, type, since)));
  },
};
