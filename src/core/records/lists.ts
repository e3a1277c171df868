/**
 * The list-shaped bodies of the HTTP API v2 (docs/protocol/http-api-v2.md §4.4–§4.7, §4.12) with REF's value
 * types as recorded (docs/protocol/transcripts.md): counts and flags are numbers, times
 * `YYYY-MM-DD HH:MM:SS` strings, record numbers and counts numbers, `totalsize` a string (MySQL's
 * DECIMAL `SUM()`), message payloads strings.
 */
import { replayOrder } from '../mp/car-message.js';
import type { HistoricalTypeSummary } from '../mp/server-commands.js';
import { formatUtc } from '../time.js';
import { canonicalJson } from './json.js';
import type { RecordBody } from './fields.js';

export interface PeerCounts {
  /** 1 when the car is connected. */
  net: number;
  /** MP apps plus API sessions registered with `GET /api/vehicle`. */
  apps: number;
  /** MP batch clients. */
  batches: number;
}

/** One element of `GET /api/vehicles`: exactly these four keys. */
export function vehicleListRow(id: string, c: PeerCounts): RecordBody {
  return { id, v_apps_connected: c.apps, v_btcs_connected: c.batches, v_net_connected: c.net };
}

/** `GET /api/vehicle/<id>`: the counts after registering, and the age of the stored `S` if any. */
export function vehicleConnectBody(c: PeerCounts, firstPeer: boolean, sTime: number | undefined, now: number): RecordBody {
  const body: RecordBody = {
    v_apps_connected: c.apps,
    v_btcs_connected: c.batches,
    v_first_peer: firstPeer ? 1 : 0,
    v_net_connected: c.net,
  };
  if (sTime !== undefined) {
    body.m_msgtime_s = formatUtc(sTime);
    body.m_msgage_s = now - sTime;
  }
  return body;
}

export interface ProtocolMessage {
  code: string;
  data: string;
  time: number;
  paranoid: boolean;
  ptoken: string;
}

/** `GET /api/protocol/<id>`: the stored messages in replay order (F, S, then the others). */
export function protocolRows(messages: readonly ProtocolMessage[]): RecordBody[] {
  return [...messages]
    .sort((a, b) => replayOrder(a.code, b.code))
    .map((m) => ({
      m_code: m.code,
      m_msg: m.data,
      m_msgtime: formatUtc(m.time),
      m_paranoid: m.paranoid ? 1 : 0,
      m_ptoken: m.ptoken,
    }));
}

/** `GET /api/historical/<id>`: one row per record type. */
export function historicalSummaryRows(types: readonly HistoricalTypeSummary[]): RecordBody[] {
  return types.map((t) => ({
    distinctrecs: t.distinctRecords,
    first: formatUtc(t.first),
    h_recordtype: t.type,
    last: formatUtc(t.last),
    totalrecs: t.totalRecords,
    totalsize: String(t.totalSize),
  }));
}

export interface HistoricalEntry {
  recordNumber: number;
  time: number;
  data: string;
}

/**
 * Whether a record type is the traffic counters' `*-OVM-Utilisation` (rows of the utilisation
 * table shown as history), in any case of its ASCII letters, as the stores' `lower()` compares.
 */
export function isUtilisationType(type: string): boolean {
  return type.length === 17 && type.replace(/[A-Z]+/g, (m) => m.toLowerCase()) === '*-ovm-utilisation';
}

/** `GET /api/historical/<id>/<type>`: the records (the type is not repeated). */
export function historicalRecordRows(records: readonly HistoricalEntry[]): RecordBody[] {
  return records.map((r) => ({ h_data: r.data, h_recordnumber: r.recordNumber, h_timestamp: formatUtc(r.time) }));
}

/**
 * The records of `historicalRecordRows` as a part of its JSON array: the elements joined by
 * commas, without the brackets and the newline. `[` + the parts joined by `,` + `]\n` is the
 * body `canonicalJson(historicalRecordRows(all))` gives, byte for byte, for an answer written in
 * pages (src/http/api-v2/historical.ts).
 */
export function historicalRecordsJsonPart(records: readonly HistoricalEntry[]): string {
  // written directly (the keys in canonical order), without an object per record
  let out = '';
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    const n = Number.isInteger(r.recordNumber) ? String(r.recordNumber) : canonicalJson(r.recordNumber).slice(0, -1);
    out += `${i === 0 ? '' : ','}{"h_data":${JSON.stringify(r.data)},"h_recordnumber":${n},"h_timestamp":"${formatUtc(r.time)}"}`;
  }
  return out;
}
