/**
 * What `/api/status` must answer, rendered afresh by the decoder from the records a test sent:
 * the answer's own `m_msgtime_*` give the stored times and `m_msgtime_* + m_msgage_*` the second
 * it was rendered in, so a remembered answer (src/http/api-v2/record-memo.ts) can be compared
 * byte for byte with one made on the spot.
 */
import assert from 'node:assert/strict';
import { canonicalJson } from '../../src/core/records/json.js';
import { statusBody } from '../../src/core/records/status.js';

const epoch = (utc: unknown): number => Date.parse(String(utc).replace(' ', 'T') + 'Z') / 1000;

/** The body statusBody renders from S and D data (without their codes) at the times the answer names. */
export function renderedStatus(body: string, s: string, d: string): string {
  const json = JSON.parse(body) as Record<string, unknown>;
  const sTime = epoch(json.m_msgtime_s);
  const dTime = epoch(json.m_msgtime_d);
  const now = sTime + Number(json.m_msgage_s);
  assert.equal(dTime + Number(json.m_msgage_d), now, 'both ages count from the same second');
  const fresh = statusBody({ data: s, time: sTime, paranoid: false }, { data: d, time: dTime, paranoid: false }, now);
  assert.notEqual(fresh, 'paranoid');
  return canonicalJson(fresh as Record<string, string | number | null>);
}
