/**
 * `/api/tpms` (docs/protocol/http-api-v2.md §4.11): from the extended `Y` record when there is one (docs/protocol/messages.md
 * §3.5), else from the legacy four-wheel `W` record (§3.4); neither gives `{}`.
 *
 * REF dies on every `Y` record (`max` is not imported), so the `Y` body is what it evidently meant: per wheel
 * `<name>_pressure_kpa` (as sent), `<name>_pressure` (psi, a number), `<name>_temperature`,
 * `<name>_health`, `<name>_alert`; the four section validities; `staletpms` as their numeric maximum;
 * and `m_msgtime_w`/`m_msgage_w` copies of the `y` times for clients of the `W` body.
 */
import { addTime, copyFields, PARANOID, splitFields, type RecordBody, type RecordResult, type StoredRecord } from './fields.js';

export const KPA_TO_PSI = 0.14503773773020923;

/** A list (count, then values) longer than this is malformed: no car has more wheels. */
const MAX_WHEELS = 64;

/** The `W` fields: [key, W field]. Also the source of the OpenAPI schema. */
export const W_FIELDS = [
  ['fr_pressure', 1],
  ['fr_temperature', 2],
  ['rr_pressure', 3],
  ['rr_temperature', 4],
  ['fl_pressure', 5],
  ['fl_temperature', 6],
  ['rl_pressure', 7],
  ['rl_temperature', 8],
  ['staletpms', 9],
] as const;

/** Perl's numeric value of a text: its leading decimal number, else 0. */
function numberOf(text: string | undefined): number {
  if (text === undefined) return 0;
  const m = /^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(text);
  return m ? Number(m[0]) : 0;
}

/** Reads `<n>,<v1>…<vn>` from `f` at `at`; returns the values and the index after them. */
function list(f: readonly string[], at: number): [(string | undefined)[], number] {
  const n = Math.max(0, Math.min(MAX_WHEELS, Math.trunc(numberOf(f[at]))));
  return [f.slice(at + 1, at + 1 + n), at + 1 + n];
}

function extendedBody(y: StoredRecord, now: number): RecordBody {
  const f = splitFields(y.data);
  const [names, p0] = list(f, 0);
  const [press, p1] = list(f, p0);
  const stalePress = f[p1];
  const [temps, p2] = list(f, p1 + 1);
  const staleTemp = f[p2];
  const [health, p3] = list(f, p2 + 1);
  const staleHealth = f[p3];
  const [alerts, p4] = list(f, p3 + 1);
  const staleAlert = f[p4];

  const body: RecordBody = {};
  addTime(body, 'y', y, now);
  addTime(body, 'w', y, now);
  names.forEach((name, i) => {
    const wheel = (name ?? '').toLowerCase();
    if (i < press.length) {
      body[wheel + '_pressure_kpa'] = press[i] ?? null;
      body[wheel + '_pressure'] = numberOf(press[i]) * KPA_TO_PSI;
    }
    if (i < temps.length) body[wheel + '_temperature'] = temps[i] ?? null;
    if (i < health.length) body[wheel + '_health'] = health[i] ?? null;
    if (i < alerts.length) body[wheel + '_alert'] = alerts[i] ?? null;
  });
  body.stale_pressure = stalePress ?? null;
  body.stale_temperature = staleTemp ?? null;
  body.stale_health = staleHealth ?? null;
  body.stale_alert = staleAlert ?? null;
  body.staletpms = Math.max(...[stalePress, staleTemp, staleHealth, staleAlert].map(numberOf));
  return body;
}

export function tpmsBody(y: StoredRecord | undefined, w: StoredRecord | undefined, now: number): RecordResult {
  if (y) return y.paranoid ? PARANOID : extendedBody(y, now);
  const body: RecordBody = {};
  if (!w) return body;
  if (w.paranoid) return PARANOID;
  addTime(body, 'w', w, now);
  copyFields(body, splitFields(w.data), W_FIELDS);
  return body;
}
