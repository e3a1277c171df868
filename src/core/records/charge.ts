/** `/api/charge` (docs/protocol/http-api-v2.md §4.9): the `S` record's charge fields plus part of `D`. */
import { addEnvironment, CHARGE_D } from './environment.js';
import { addTime, copyFields, PARANOID, splitFields, type RecordBody, type RecordResult, type StoredRecord } from './fields.js';

/**
 * The `S` fields of `/api/charge`: [key, S field]. S fields 14, 15 and 42 are not exposed (as in REF).
 * Also the source of its OpenAPI schema.
 */
export const CHARGE_S_FIELDS = [
  ['soc', 1],
  ['units', 2],
  ['linevoltage', 3],
  ['chargecurrent', 4],
  ['chargestate', 5],
  ['mode', 6],
  ['idealrange', 7],
  ['estimatedrange', 8],
  ['chargelimit', 9],
  ['chargeduration', 10],
  ['chargeb4', 11],
  ['chargekwh', 12],
  ['chargesubstate', 13],
  ['chargetimermode', 16],
  ['chargestarttime', 17],
  ['chargetimerstale', 18],
  ['cac100', 19],
  ['charge_etr_full', 20],
  ['charge_etr_limit', 21],
  ['charge_limit_range', 22],
  ['charge_limit_soc', 23],
  ['cooldown_active', 24],
  ['cooldown_tbattery', 25],
  ['cooldown_timelimit', 26],
  ['charge_estimate', 27],
  ['charge_etr_range', 28],
  ['charge_etr_soc', 29],
  ['idealrange_max', 30],
  ['chargetype', 31],
  ['chargepower', 32],
  ['battvoltage', 33],
  ['soh', 34],
  ['chargepowerinput', 35],
  ['chargerefficiency', 36],
  ['batt_current', 37],
  ['batt_range_speed', 38],
  ['charge_kwh_grid', 39],
  ['charge_kwh_grid_total', 40],
  ['batt_capacity', 41],
] as const;

export function chargeBody(s: StoredRecord | undefined, d: StoredRecord | undefined, now: number): RecordResult {
  const body: RecordBody = {};
  if (s) {
    if (s.paranoid) return PARANOID;
    addTime(body, 's', s, now);
    copyFields(body, splitFields(s.data), CHARGE_S_FIELDS);
  }
  addEnvironment(body, d, CHARGE_D, now);
  return body;
}
