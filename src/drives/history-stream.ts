/**
 * A vehicle's stored records of the types the session tracker follows, oldest first, read in pages
 * so that memory stays flat however long the history (a rebuild reads years of it).
 */
import { TRACKED_TYPES, type SessionInput } from '../core/drives/tracker.js';
import type { HistoricalEntry, HistoricalPosition, Store } from '../store/store.js';

/** Records read per query and type. */
const PAGE = 5000;

interface Cursor {
  rank: number;
  type: string;
  page: HistoricalEntry[];
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
 * (`S`, `D`, `L`, then the logs), then by record number; in batches (a promise per batch, not per
 * record: a rebuild reads a hundred thousand records a second).
 */
export async function* trackedBatches(store: Store, vehicleId: string, since = 0): AsyncGenerator<SessionInput[]> {
  const start: HistoricalPosition | null = since > 0 ? { time: since - 1, recordNumber: Number.MAX_SAFE_INTEGER } : null;
  const cursors: Cursor[] = TRACKED_TYPES.map((type, rank) => ({ rank, type, page: [], at: 0, after: start, done: false }));
  for (;;) {
    for (const c of cursors) if (c.at >= c.page.length && !c.done) await refill(store, vehicleId, c);
    const batch: SessionInput[] = [];
    // merge until a cursor with more to read runs out of its page
    for (;;) {
      let best: Cursor | undefined;
      let bestRec: HistoricalEntry | undefined;
      let starved = false;
      for (const c of cursors) {
        const rec = c.page[c.at];
        if (!rec) {
          if (!c.done) starved = true;
          continue;
        }
        if (!bestRec || rec.time < bestRec.time || (rec.time === bestRec.time && c.rank < best!.rank)) {
          best = c;
          bestRec = rec;
        }
      }
      if (starved || !best || !bestRec) break;
      best.at++;
      batch.push({ code: best.type, time: bestRec.time, data: bestRec.data });
    }
    if (batch.length > 0) yield batch;
    else if (cursors.every((c) => c.done && c.at >= c.page.length)) return;
  }
}

/** As trackedBatches, one record at a time. */
export async function* trackedHistory(store: Store, vehicleId: string, since = 0): AsyncGenerator<SessionInput> {
  for await (const batch of trackedBatches(store, vehicleId, since)) yield* batch;
}
