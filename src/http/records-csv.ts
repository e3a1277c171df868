/**
 * CSV downloads of historical records (src/core/records/csv.ts), shared by API v2's
 * `/api/historical/…?format=csv` and the custom API's `/api/<service>/csv`.
 */
import type { FastifyReply } from 'fastify';
import { CSV_CONTENT_TYPE, csvFilename, foldType, historicalCsv } from '../core/records/csv.js';
import type { HistoricalRecord } from '../store/store.js';
import type { HttpContext } from './context.js';
import { sendText, status } from './reply.js';

/** The most records one CSV download holds; a larger one is a 413. */
export const MAX_CSV_RECORDS = 100_000;

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

/** A CSV download named `filename`. */
export function sendCsv(reply: FastifyReply, filename: string, body: string): FastifyReply {
  return status(reply, 200)
    .header('content-type', CSV_CONTENT_TYPE)
    .header('content-disposition', `attachment; filename="${filename}"`)
    .send(body);
}
