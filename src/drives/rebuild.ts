/**
 * Recomputes a vehicle's drives and charges from its stored history and firmware logs
 * (`vts sessions rebuild`, and the recorder when records arrive out of order): a fresh tracker is
 * fed every record in time order, then the time up to now; the sessions it ends with, tagged with
 * the owner's places, replace the stored ones that start within the history read. Sessions older
 * than the oldest record kept (the raw history expires, the sessions do not) stay as they are.
 * Idempotent: the same history gives the same sessions, with the same ids.
 */
import { SessionTracker } from '../core/drives/tracker.js';
import { tagSession } from '../core/drives/places.js';
import type { Session, SessionOp } from '../core/drives/types.js';
import type { Store } from '../store/store.js';
import { trackedBatches } from './history-stream.js';

export interface RebuildResult {
  records: number;
  drives: number;
  charges: number;
}

/** Applies one batch of tracker operations to a set of sessions by kind and key. */
export function applyOps(sessions: Map<string, Session>, ops: readonly SessionOp[]): void {
  for (const op of ops) {
    if (op.op === 'put') sessions.set(`${op.session.session}:${op.session.key}`, op.session);
    else sessions.delete(`${op.session}:${op.key}`);
  }
}

/**
 * Rebuilds one vehicle. `progress` hears the records read so far (every few thousand).
 * @returns undefined when the vehicle does not exist
 */
export async function rebuildVehicle(
  store: Store,
  vehicleId: string,
  now: number,
  progress?: (records: number) => void,
): Promise<RebuildResult | undefined> {
  const vehicle = await store.getVehicle(vehicleId.toUpperCase());
  if (!vehicle) return undefined;
  const tracker = new SessionTracker(undefined, { publishEvery: Infinity });
  const sessions = new Map<string, Session>();
  let records = 0;
  let first: number | null = null;
  for await (const batch of trackedBatches(store, vehicle.id)) {
    if (first === null) first = batch[0]!.time;
    for (const input of batch) applyOps(sessions, tracker.feed(input));
    records += batch.length;
    progress?.(records);
  }
  applyOps(sessions, tracker.tick(now));
  progress?.(records);
  const places = await store.drives.listPlaces(vehicle.ownerId);
  const tagged = [...sessions.values()].map((s) => tagSession(s, places));
  await store.drives.replaceSessions(vehicle.id, tagged, JSON.stringify(tracker.toJSON()), first ?? now);
  let drives = 0;
  for (const s of tagged) if (s.session === 'drive') drives++;
  return { records, drives, charges: tagged.length - drives };
}
