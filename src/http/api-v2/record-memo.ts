/**
 * The rendered answer of a record endpoint (`/api/status` and its kin), kept per vehicle and used
 * again while nothing it is made of has changed. It is made of the stored records it decodes and
 * the current second (the `m_msgage_*` fields count seconds), so that is the key: the records are
 * compared by value (text, time, paranoid flag) with those the answer was rendered from. Whatever
 * the store answers is therefore what the answer shows, exactly as when it was rendered on every
 * request: a record this node wrote, one another node of a cluster or the CLI wrote (the store
 * sees those as it always has), a record removed. Nothing has to tell the memo of a change. It
 * holds the answers of the current second only (no other can be used again): as many as vehicles
 * were asked for in that second.
 */
import type { PARANOID, StoredRecord } from '../../core/records/fields.js';

/** An answer: the JSON body of a 200 (its UTF-8 bytes, encoded once), or PARANOID (the 502). */
export type Rendered = Buffer | typeof PARANOID;

interface Entry {
  records: readonly (StoredRecord | undefined)[];
  rendered: Rendered;
}

function sameRecord(a: StoredRecord | undefined, b: StoredRecord | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.data === b.data && a.time === b.time && a.paranoid === b.paranoid;
}

export class RecordMemo {
  private readonly entries = new Map<string, Entry>();
  /** The second of the entries: an answer of another second is never used again. */
  private second = -1;

  /** `max`: vehicles remembered (in one second); past it the one remembered first goes. */
  constructor(private readonly max = 10_000) {}

  /** The answer rendered from these very records in this second, if remembered. */
  get(vehicleId: string, records: readonly (StoredRecord | undefined)[], now: number): Rendered | undefined {
    if (now !== this.second) return undefined;
    const e = this.entries.get(vehicleId);
    if (!e || e.records.length !== records.length) return undefined;
    for (let i = 0; i < records.length; i++) if (!sameRecord(e.records[i], records[i])) return undefined;
    return e.rendered;
  }

  /** Remembers the answer rendered from `records` in second `now`; returns it. */
  set(vehicleId: string, given: readonly (StoredRecord | undefined)[], now: number, rendered: Rendered): Rendered {
    // the values, not the store's objects: nothing the store does later to those can change them
    const records = given.map((r) => r && { data: r.data, time: r.time, paranoid: r.paranoid });
    if (now !== this.second) {
      // the memo holds only the answers of the current second: those are all it can use
      this.entries.clear();
      this.second = now;
    }
    if (!this.entries.has(vehicleId) && this.entries.size >= this.max) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(vehicleId, { records, rendered });
    return rendered;
  }

  get size(): number {
    return this.entries.size;
  }
}
