/**
 * After an owner created, changed or removed a place: every session of every vehicle of the owner
 * is tagged again with the owner's places and, for a charge, priced again (src/core/drives/places.ts
 * `tagSession`), and the sessions whose place or cost changed are written back (`retagSessions`).
 * Charges are read with their samples: time-of-use windows split a charge's energy by them.
 * (Each session is tagged as a copy, so a change shows whatever `tagSession` does with its argument.)
 */
import { tagSession } from '../../core/drives/places.js';
import type { Place } from '../../core/drives/types.js';
import type { StoredCharge, StoredDrive, StoredSession } from '../../store/drives-store.js';
import type { Store } from '../../store/store.js';
import { allSessions } from './sessions-common.js';

function changed(before: StoredSession, after: StoredSession): boolean {
  if (before.session === 'drive' && after.session === 'drive') return before.fromPlace !== after.fromPlace || before.toPlace !== after.toPlace;
  if (before.session === 'charge' && after.session === 'charge') return before.place !== after.place || before.cost !== after.cost || before.currency !== after.currency;
  return true;
}

/** Tags and prices the owner's sessions with `places` (the owner's, as they are now); returns how many changed. */
export async function retagOwner(store: Store, ownerId: number, places: readonly Place[]): Promise<number> {
  let count = 0;
  for (const vehicle of await store.listVehicles(ownerId)) {
    const { drives, charges } = await allSessions(store, vehicle.id, true);
    const tagged: StoredSession[] = [];
    for (const d of drives) {
      const t: StoredDrive = tagSession({ ...d }, places);
      if (changed(d, t)) tagged.push(t);
    }
    for (const c of charges) {
      const t: StoredCharge = tagSession({ ...c }, places);
      if (changed(c, t)) tagged.push(t);
    }
    if (tagged.length > 0) await store.drives.retagSessions(vehicle.id, tagged);
    count += tagged.length;
  }
  return count;
}
