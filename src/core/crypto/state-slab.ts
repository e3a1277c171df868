/**
 * Slots of 512 bytes for the two RC4 states of a scheme-0 connection (./mp-cipher.ts), cut from
 * shared slabs of 128 slots. A buffer of its own per state costs, besides its 256 bytes, an
 * ArrayBuffer, a typed array and a backing store allocated outside V8's heap: with thousands of
 * parked cars that is most of what their ciphers take. A slot goes back to the free list once the
 * cipher that took it has been collected (a FinalizationRegistry), so nobody has to release it;
 * slabs are kept for the next connections (a reconnect storm takes again what it gave back).
 */
export const SLOT_BYTES = 512;
const SLOTS_PER_SLAB = 128;

const slabs: Uint8Array[] = [];
const free: number[] = [];
const registry = new FinalizationRegistry<number>((slot) => void free.push(slot));

export interface Slot {
  /** The slab; the slot is `SLOT_BYTES` of it from `at`. */
  readonly buf: Uint8Array;
  readonly at: number;
}

/** A slot for `owner`'s lifetime: free again after `owner` is garbage collected. */
export function takeSlot(owner: object): Slot {
  let slot = free.pop();
  if (slot === undefined) {
    const first = slabs.length * SLOTS_PER_SLAB;
    slabs.push(new Uint8Array(SLOTS_PER_SLAB * SLOT_BYTES));
    for (let k = SLOTS_PER_SLAB - 1; k > 0; k--) free.push(first + k);
    slot = first;
  }
  registry.register(owner, slot);
  return { buf: slabs[Math.floor(slot / SLOTS_PER_SLAB)]!, at: (slot % SLOTS_PER_SLAB) * SLOT_BYTES };
}

/** Slots in slabs, and of them free (for tests and metrics). */
export function slotCounts(): { total: number; free: number } {
  return { total: slabs.length * SLOTS_PER_SLAB, free: free.length };
}
