/**
 * When vts sends a linked vehicle's telemetry to ABRP (docs/abrp.md): the send policy of the OVMS
 * v3 module's ABRP plugin, and the back-off after failures. Pure: the caller passes the time.
 *
 * - At once on a significant change since the last telemetry sent: the SOC (whole percent), the
 *   charging or parked state flipping, or the power moving by 1 kW or more while charging.
 * - Otherwise once the interval of what the car is doing has passed since the last send: 5 s
 *   above 70 km/h, 160 s while driving (above 5 km/h) or DC charging, 30 min while AC charging or
 *   standing, a day while parked.
 * - A failed send (network, 5xx, 429, an error answer) is tried again after a back-off that
 *   doubles from 30 s up to 30 min; 401 and 403 (ABRP refuses the token) stop the link.
 */
import type { AbrpTlm } from './telemetry.js';

/** What the car is doing, as far as the policy cares. */
export type Activity = 'fast' | 'driving' | 'dc-charging' | 'ac-charging' | 'standing' | 'parked';

/** Above this (km/h) ABRP wants data every few seconds (it calibrates its model). */
export const FAST_KMH = 70;
/** Above this (km/h) the car drives. */
export const DRIVING_KMH = 5;

/** Seconds between two sends without a significant change, by activity. */
export const INTERVALS: Readonly<Record<Activity, number>> = {
  fast: 5,
  driving: 160,
  'dc-charging': 160,
  'ac-charging': 30 * 60,
  standing: 30 * 60,
  parked: 86_400,
};

/** The shortest interval: no two sends closer than this without a significant change. */
export const MIN_INTERVAL = INTERVALS.fast;

/** The telemetry last sent and when (server seconds). */
export interface Sent {
  tlm: AbrpTlm;
  at: number;
}

export function activity(tlm: AbrpTlm): Activity {
  const speed = tlm.speed ?? 0;
  if (tlm.is_charging) return tlm.is_dcfc ? 'dc-charging' : 'ac-charging';
  if (speed > FAST_KMH) return 'fast';
  if (speed > DRIVING_KMH) return 'driving';
  return tlm.is_parked ? 'parked' : 'standing';
}

/** A value that is known now and differs from the one sent (one not known now is no change). */
const changed = <T>(sent: T | undefined, now: T | undefined): boolean => now !== undefined && sent !== now;

/** Why `now` differs significantly from what was sent, or null. */
export function significantChange(sent: AbrpTlm, now: AbrpTlm): string | null {
  if (now.soc !== undefined && (sent.soc === undefined || Math.round(sent.soc) !== Math.round(now.soc))) return 'soc';
  if (changed(sent.is_charging, now.is_charging)) return 'charging';
  if (changed(sent.is_parked, now.is_parked)) return 'parked';
  if (now.is_charging && now.power !== undefined && (sent.power === undefined || Math.abs(now.power - sent.power) >= 1)) return 'power';
  return null;
}

export interface Decision {
  send: boolean;
  /** Why (a significant change, `first`, `interval`), or why not (`wait`). */
  reason: string;
  /** When it is due without a significant change (server seconds). */
  dueAt: number;
}

/** Whether to send `now` (server seconds) the telemetry `tlm`, given what was sent last (null: nothing yet). */
export function decide(sent: Sent | null, tlm: AbrpTlm, now: number): Decision {
  if (sent === null) return { send: true, reason: 'first', dueAt: now };
  const dueAt = sent.at + INTERVALS[activity(tlm)];
  const why = significantChange(sent.tlm, tlm);
  if (why) return { send: true, reason: why, dueAt };
  return now >= dueAt ? { send: true, reason: 'interval', dueAt } : { send: false, reason: 'wait', dueAt };
}

/** The first wait after a failure, and the longest (seconds). */
export const BACKOFF_FIRST = 30;
export const BACKOFF_MAX = 30 * 60;

/** Seconds to wait after the `failures`-th failure in a row (1 = the first); a Retry-After is honoured up to the maximum. */
export function backoffSeconds(failures: number, retryAfter?: number): number {
  const doubled = BACKOFF_FIRST * 2 ** Math.min(Math.max(failures, 1) - 1, 20);
  const wait = Math.max(doubled, retryAfter !== undefined && Number.isFinite(retryAfter) ? retryAfter : 0);
  return Math.min(BACKOFF_MAX, wait);
}

/** What an answer of ABRP means for the link. */
export type SendOutcome = { kind: 'ok' } | { kind: 'retry'; reason: string; retryAfter?: number } | { kind: 'refused'; reason: string };

/**
 * An HTTP answer of `<url>/1/tlm/send`: its status, its `Retry-After` header and its body (ABRP
 * answers `{"status":"ok"}` or `{"status":"error", …}`). The reason is for the owner's eyes: it
 * never quotes what was sent.
 */
export function classifyAnswer(status: number, retryAfter: string | null, body: string): SendOutcome {
  if (status === 401 || status === 403) return { kind: 'refused', reason: `ABRP refused the token (HTTP ${status}): link the vehicle again with a new token` };
  if (status >= 200 && status < 300) {
    const answer = parseStatus(body);
    if (answer === null || answer.status === 'ok') return { kind: 'ok' };
    return { kind: 'retry', reason: `ABRP answered an error${answer.detail ? `: ${answer.detail}` : ''}` };
  }
  const wait = retryAfter !== null && /^\s*\d{1,9}\s*$/.test(retryAfter) ? Number(retryAfter) : undefined;
  return { kind: 'retry', reason: `ABRP answered HTTP ${status}`, ...(wait !== undefined ? { retryAfter: wait } : {}) };
}

/** ABRP's `status` and a short printable detail (`error`/`message`), or null when the body is not such JSON. */
function parseStatus(body: string): { status: string; detail: string } | null {
  try {
    const v = JSON.parse(body) as unknown;
    if (v === null || typeof v !== 'object' || typeof (v as { status?: unknown }).status !== 'string') return null;
    const o = v as Record<string, unknown>;
    const detail = [o.error, o.message, o.missing].find((x): x is string => typeof x === 'string') ?? '';
    return { status: String(o.status), detail: detail.replace(/[^\x20-\x7e]/g, '?').slice(0, 120) };
  } catch {
    return null;
  }
}
