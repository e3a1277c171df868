/** `/api/location` (docs/protocol/http-api-v2.md §4.10): `L` fields 1–14; fields 15–19 are not exposed. */
import { addTime, copyFields, PARANOID, splitFields, type RecordBody, type RecordResult, type StoredRecord } from './fields.js';

/** [key, L field]. Also the source of the OpenAPI schema. */
export const L_FIELDS = [
  ['latitude', 1],
  ['longitude', 2],
  ['direction', 3],
  ['altitude', 4],
  ['gpslock', 5],
  ['stalegps', 6],
  ['speed', 7],
  ['tripmeter', 8],
  ['drivemode', 9],
  ['power', 10],
  ['energyused', 11],
  ['energyrecd', 12],
  ['invpower', 13],
  ['invefficiency', 14],
] as const;

export function locationBody(l: StoredRecord | undefined, now: number): RecordResult {
  const body: RecordBody = {};
  if (!l) return body;
  if (l.paranoid) return PARANOID;
  addTime(body, 'l', l, now);
  copyFields(body, splitFields(l.data), L_FIELDS);
  return body;
}
