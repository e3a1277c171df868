/**
 * `GET /api/historical/<VEHICLEID>[/<RECORDTYPE>]` with `since` (docs/protocol/http-api-v2.md §4.12); with
 * `format=csv` the same rows as a CSV download (src/http/records-csv.ts, shared with the custom
 * API's `/api/<service>/csv`).
 *
 * The records of one type are read in pages of HISTORY_PAGE: an answer that fits in one page is
 * sent as one body, as every other JSON answer; a longer one (years of a car's history) is written
 * page by page as the client reads it (chunked, the same bytes), so that the server never holds
 * the whole answer. Records written while it is being sent may show in its later pages.
 */
import { Readable } from 'node:stream';
import { csvFilename, historicalSummaryCsv } from '../../core/records/csv.js';
import { historicalRecordRows, historicalRecordsJsonPart, historicalSummaryRows, isUtilisationType } from '../../core/records/lists.js';
import { parseSince } from '../../core/time.js';
import type { HistoricalEntry, HistoricalPosition, Store } from '../../store/store.js';
import { badRequest, forbidden, sendJson, sendJsonStream, sendJsonText } from '../reply.js';
import { ownVehicle, type ApiRoute } from '../api-call.js';
import { sendCsv, sendRecordsCsv } from '../records-csv.js';

/** Records per page of a long answer. */
export const HISTORY_PAGE = 2000;

async function* pages(store: Store, vehicleId: string, type: string, first: HistoricalEntry[]): AsyncGenerator<string> {
  yield '[' + historicalRecordsJsonPart(first);
  let page = first;
  while (page.length === HISTORY_PAGE) {
    const last = page[page.length - 1]!;
    page = await store.pageHistorical(vehicleId, type, { time: last.time, recordNumber: last.recordNumber }, HISTORY_PAGE);
    if (page.length > 0) yield ',' + historicalRecordsJsonPart(page);
  }
  yield ']\n';
}

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
    // the traffic counters' type: rows of the utilisation table (the store's getHistorical), not paged
    if (isUtilisationType(type)) return sendJson(reply, 200, historicalRecordRows(await ctx.store.getHistorical(vehicle.id, type, since)));
    // time > since: after every record number of that second
    const after: HistoricalPosition = { time: since, recordNumber: Number.MAX_SAFE_INTEGER };
    const first = await ctx.store.pageHistorical(vehicle.id, type, after, HISTORY_PAGE);
    if (first.length < HISTORY_PAGE) return sendJsonText(reply, 200, '[' + historicalRecordsJsonPart(first) + ']\n');
    return sendJsonStream(reply, 200, Readable.from(pages(ctx.store, vehicle.id, type, first), { objectMode: false }));
  },
};
