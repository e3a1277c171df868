/**
 * What a logging-in app or batch client gets first (docs/protocol/mp.md §8.1): `Z`, the stored car
 * messages (paranoid ones behind one `ET`), `T<age>`; and what was held for it meanwhile.
 */
import { replayOrder } from '../../core/mp/car-message.js';
import type { CarMessage } from '../../store/store.js';
import type { StoredRef } from '../types.js';
import type { Peer } from './peer.js';

/** The answer of `T` at login when the car never sent anything (REF's clamped MySQL TIME). */
export const NEVER_UPDATED_AGE = 3020399;

/** A message held for a client whose login replay is in progress. */
export interface HeldMessage {
  code: string;
  data: string;
  /** The stored message it passes on: dropped if the replay already had it. */
  of: StoredRef | undefined;
}

export const storedKey = (m: StoredRef): string => `${m.code}\u0000${m.time}\u0000${m.data}`;

/**
 * Sends the replay; returns the keys of the stored messages it showed. `age`: seconds since the
 * car last sent something, null when it never did.
 */
export function sendReplay(peer: Peer, online: boolean, messages: CarMessage[], ptoken: string, age: number | null): Set<string> {
  peer.send('Z', online ? '1' : '0');
  messages.sort((a, b) => replayOrder(a.code, b.code));
  let tokenSent = false;
  for (const m of messages) {
    if (m.paranoid) {
      if (!tokenSent && ptoken) peer.send('E', 'T' + ptoken);
      tokenSent = true;
      peer.send('E', 'M' + m.code + m.data);
    } else {
      peer.send(m.code, m.data);
    }
  }
  peer.send('T', String(age === null ? NEVER_UPDATED_AGE : Math.max(0, age)));
  return new Set(messages.map(storedKey));
}

/**
 * Sends what was held for a client during its replay. Car messages held up to the last one of
 * their code that the replay contained are skipped: the replay showed that one, or a newer one
 * that replaced them in the same commit. Later ones, and everything else, follow in order.
 */
export function sendHeld(peer: Peer, held: HeldMessage[], replayed: Set<string> | undefined): void {
  const shownUpTo = new Map<string, number>();
  held.forEach((h, k) => {
    if (h.of && replayed?.has(storedKey(h.of))) shownUpTo.set(h.of.code, k);
  });
  held.forEach((h, k) => {
    if (!h.of || k > (shownUpTo.get(h.of.code) ?? -1)) peer.send(h.code, h.data);
  });
}
