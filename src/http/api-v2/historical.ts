/**
 * `GET /api/historical/<VEHICLEID>[/<RECORDTYPE>]` with `since` (http-api-v2.md §4.12); with
 * `format=csv` the same rows as a CSV download (src/core/records/csv.ts; also used by the custom
 * API's `/api/<service>/csv`).
 */
import type { FastifyReply } from 'fastify';
import { CSV_CONTENT_TYPE, csvFilename, foldType, historicalCsv, historicalSummaryCsv } from '../../core/records/csv.js';
import { historicalRecordRows, historicalSummaryRows } from '../../core/records/lists.js';
import { parseSince } from '../../core/time.js';
import type { HistoricalRecord } from '../../store/store.js';
import type { HttpContext } from '../context.js';
import { badRequest, forbidden, sendJson, sendText, status } from '../reply.js';
import { ownVehicle, type ApiRoute } from '../api-call.js';

/** The most records one CSV download holds; a larger one is a 413. */
export const MAX_CSV_RECORDS = 100_000;

export const historical: ApiRoute = {
  async handler(call) {
    const { ctx, reply, args, params } = call;
    const vehicle = await ownVehicle(call);
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

/**
 * Answers the records of `types` (matched case-insensitively) newer than `since` as a CSV
 * download, or 413 when there are more than MAX_CSV_RECORDS (`sinceName` is the parameter the
 * caller can narrow the download with). The summary counts them before any record is read.
 */
export async function sendRecordsCsv(
  ctx: HttpContext,
  reply: FastifyReply,
  vehicleId: string,
  types: readonly string[],
  since: number,
  sinceName: string,
): Promise<unknown> {
  const wanted = new Set(types.map(foldType));
  const present = (await ctx.store.summarizeHistorical(vehicleId, since)).filter((t) => wanted.has(foldType(t.type)));
  const tooMany = () => sendText(reply, 413, `More than ${MAX_CSV_RECORDS} records: use ${sinceName} to download them in parts`);
  if (present.reduce((n, t) => n + t.totalRecords, 0) > MAX_CSV_RECORDS) return tooMany();
  let records: HistoricalRecord[] = [];
  for (const t of present) records = records.concat(await ctx.store.getHistorical(vehicleId, t.type, since));
  // records may have arrived between the two reads
  if (records.length > MAX_CSV_RECORDS) return tooMany();
  return sendCsv(reply, csvFilename(vehicleId, types), historicalCsv(records));
}

function sendCsv(reply: FastifyReply, filename: string, body: string): FastifyReply {
  return status(reply, 200)
    .header('content-type', CSV_CONTENT_TYPE)
    .header('content-disposition', `attachment; filename="${filename}"`)
    .send(body);
}
