/**
 * A vehicle's stored records of the types the session tracker follows, oldest first, read in pages
 * so that memory stays flat however long the history (a rebuild reads years of it).
 */
import { TRACKED_TYPES, type SessionInput } from '../core/drives/tracker.js';
import type { HistoricalPosition, HistoricalRecord, Store } from '../store/store.js';

/** Records read per query and type. */
const PAGE = 5000;

interface Cursor {
  rank: number;
  type: string;
  page: HistoricalRecord[];
  at: number;
  after: HistoricalPosition | null;
  done: boolean;
}

async function refill(store: Store, vehicleId: string, c: Cursor): Promise<void> {
  if (c.at < c.page.length || c.done) return;
  c.page = await store.pageHistorical(vehicleId, c.type, c.after, PAGE);
  c.at = 0;
  if (c.page.length < PAGE) c.done = true;
  const last = c.page[c.page.length - 1];
  if (last) c.after = { time: last.time, recordNumber: last.recordNumber };
}

/**
 * The records with time ≥ `since`, by time; at the same second in the order of TRACKED_TYPES
 * (`S`, `D`, `L`, then the logs), then by record number.
 */
export async function* trackedHistory(store: Store, vehicleId: string, since = 0): AsyncGenerator<SessionInput> {
  const start: HistoricalPosition | null = since > 0 ? { time: since - 1, recordNumber: Number.MAX_SAFE_INTEGER } : null;
  const cursors: Cursor[] = TRACKED_TYPES.map((type, rank) => ({ rank, type, page: [], at: 0, after: start, done: false }));
  for (;;) {
    let best: Cursor | undefined;
    let bestRec: HistoricalRecord | undefined;
    for (const c of cursors) {
      if (c.at >= c.page.length && !c.done) await refill(store, vehicleId, c);
      const rec = c.page[c.at];
      if (!rec) continue;
      if (!bestRec || rec.time < bestRec.time || (rec.time === bestRec.time && c.rank < best!.rank)) {
        best = c;
        bestRec = rec;
      }
    }
    if (!best || !bestRec) return;
    best.at++;
    yield { code: best.type, time: bestRec.time, data: bestRec.data };
  }
}
