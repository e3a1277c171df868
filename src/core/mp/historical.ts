/** Historical records `H` and `h` (docs/protocol/mp.md §15, docs/protocol/messages.md §3.11). */
import { splitFields } from './message.js';

export interface HistoricalInput {
  type: string;
  recordNumber: number;
  /** Seconds the record lives (from its timestamp). */
  lifetime: number;
  data: string;
  /** Seconds relative to now (≤ 0): the record's age. 0 for `H`. */
  timeDiff: number;
}

const INT = /^-?\d{1,12}$/;

/** `H<type>,<recordnumber>,<lifetime>,<data>`; null when malformed. */
export function parseH(data: string): HistoricalInput | null {
  const f = splitFields(data, 3);
  if (!f) return null;
  const [type, num, life, rest] = f as [string, string, string, string];
  if (!type || !INT.test(num) || !INT.test(life)) return null;
  return { type, recordNumber: Number(num), lifetime: Number(life), data: rest, timeDiff: 0 };
}

export interface AckedHistoricalInput {
  ackCode: string;
  record: HistoricalInput | null;
}

/**
 * `h<ackcode>,<timediff>,<type>,<recordnumber>,<lifetime>,<data>`. The ack code is whatever
 * precedes the first comma (the whole data when there is none): REF acks even malformed records.
 */
export function parseAckedH(data: string): AckedHistoricalInput {
  const comma = data.indexOf(',');
  const ackCode = comma < 0 ? data : data.slice(0, comma);
  const f = splitFields(data, 5);
  if (!f) return { ackCode, record: null };
  const [, diff, type, num, life, rest] = f as [string, string, string, string, string, string];
  if (!type || !INT.test(diff) || !INT.test(num) || !INT.test(life)) return { ackCode, record: null };
  return {
    ackCode,
    record: { type, recordNumber: Number(num), lifetime: Number(life), data: rest, timeDiff: Number(diff) },
  };
}

/**
 * Timestamp and expiry (epoch seconds) of a record received at `now`. The timestamp is
 * now + timediff; the expiry is timestamp + lifetime (REF uses now + lifetime − timediff, which
 * extends the life of a late record by its age: docs/protocol/mp.md §19 #14).
 */
export function historicalTimes(rec: HistoricalInput, now: number): { time: number; expires: number } {
  const time = now + Math.min(0, rec.timeDiff);
  return { time, expires: time + Math.max(0, rec.lifetime) };
}
