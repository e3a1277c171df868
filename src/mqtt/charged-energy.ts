/**
 * The lifetime charged energy of a vehicle for `vts/energy_charged_total` (docs/home-assistant.md):
 * the sum of its recorded charges, read from the store a few at a time (at start every vehicle asks
 * at once), and read again a while after a charge ends (the recorder closes the charge then), once
 * per vehicle however often its charging flaps meanwhile.
 */
import type { Store } from '../store/store.js';

/** Reads at once; more wait for their turn. */
const CONCURRENT_READS = 4;

export class ChargedEnergy {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly later = new Map<string, NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly store: Store,
    /** Epoch seconds. */
    private readonly now: () => number,
    /** Seconds after a charge ends before the sum is read again. */
    private readonly delayS = 120,
  ) {}

  /** The sum of the energy added by the vehicle's charges, kWh. */
  async read(vehicleId: string): Promise<number> {
    if (this.running >= CONCURRENT_READS) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
    try {
      const charges = await this.store.drives.listCharges(vehicleId, 0, this.now() + 86400);
      let total = 0;
      for (const c of charges) total += c.energyAdded ?? 0;
      return total;
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }

  /** Calls `then` with the sum `delayS` after the last call for this vehicle. */
  readLater(vehicleId: string, then: (total: number) => void, failed: (err: unknown) => void): void {
    if (this.closed) return;
    clearTimeout(this.later.get(vehicleId));
    const timer = setTimeout(() => {
      this.later.delete(vehicleId);
      if (!this.closed) this.read(vehicleId).then(then, failed);
    }, this.delayS * 1000);
    timer.unref();
    this.later.set(vehicleId, timer);
  }

  close(): void {
    this.closed = true;
    for (const t of this.later.values()) clearTimeout(t);
    this.later.clear();
  }
}
