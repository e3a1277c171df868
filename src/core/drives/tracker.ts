/**
 * The session tracker: follows one vehicle's records and tells which drives and charges they
 * make (docs/web-api.md "Drives and charges"). Pure and deterministic: the same records give the
 * same sessions whether fed live or replayed by a rebuild. Its state is JSON, saved as the
 * vehicle's checkpoint (src/store/drives-store.ts) and given back to the constructor after a
 * restart or a failover.
 *
 * (Contract stub: implemented by the tracker's own change.)
 */
import type { SessionOp } from './types.js';

/** The firmware's trip and charge logs, as historical record types (docs/protocol/messages.md §3.11). */
export const TRIP_LOG = '*-LOG-Trip';
export const GRID_LOG = '*-LOG-Grid';

/** The record types the tracker follows: live `S`, `D`, `L` and the two logs. */
export const TRACKED_TYPES: readonly string[] = ['S', 'D', 'L', TRIP_LOG, GRID_LOG];

/**
 * One record: a live message (`code` S, D or L; `data` without the code; `time` when received) or
 * a firmware log (`code` TRIP_LOG or GRID_LOG; `data` the fields after the lifetime; `time` the
 * record's own time, arrival plus its negative age).
 */
export interface SessionInput {
  code: string;
  time: number;
  data: string;
}

export class SessionTracker {
  /** `state`: what `toJSON()` gave (parsed); anything else starts afresh. */
  constructor(state?: unknown) {
    void state;
  }

  /** Takes one record; returns the session changes it makes (often none). */
  feed(input: SessionInput): SessionOp[] {
    void input;
    return [];
  }

  /** The passing of time without records (a drive silent 15 minutes ends, a stopped charge that did not resume ends). */
  tick(now: number): SessionOp[] {
    void now;
    return [];
  }

  /** The time of the newest record fed (0 before any). */
  get lastTime(): number {
    return 0;
  }

  /** Whether a session is open or a decision waits on time (the recorder ticks such trackers). */
  get busy(): boolean {
    return false;
  }

  /** The state to save (JSON-serialisable). */
  toJSON(): unknown {
    return {};
  }
}
