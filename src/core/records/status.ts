/** `/api/status` (docs/protocol/http-api-v2.md §4.8): the `S` record's main fields plus the `D` record. */
import { addEnvironment, STATUS_D } from './environment.js';
import { addTime, copyFields, PARANOID, splitFields, type RecordBody, type RecordResult, type StoredRecord } from './fields.js';

/** The `S` fields of `/api/status`: [key, S field]. Also the source of its OpenAPI schema. */
export const STATUS_S_FIELDS = [
  ['soc', 1],
  ['units', 2],
  ['chargestate', 5],
  ['mode', 6],
  ['idealrange', 7],
  ['estimatedrange', 8],
  ['cac100', 19],
  ['cooldown_active', 24],
  ['idealrange_max', 30],
  ['soh', 34],
] as const;

/** A paranoid `S` is a 502; a paranoid `D` is skipped; neither record gives `{}`. */
export function statusBody(s: StoredRecord | undefined, d: StoredRecord | undefined, now: number): RecordResult {
  const body: RecordBody = {};
  if (s) {
    if (s.paranoid) return PARANOID;
    addTime(body, 's', s, now);
    copyFields(body, splitFields(s.data), STATUS_S_FIELDS);
  }
  addEnvironment(body, d, STATUS_D, now);
  return body;
}
