/**
 * Live watchers of vehicles (docs/web-api.md "Live updates"): the dashboard's streams hear a
 * vehicle's records, notifications and link changes on the node they are connected to.
 */
import type { Logger } from 'pino';
import type { LiveEvent } from '../types.js';

export type LiveListener = (event: LiveEvent) => void;

export class LiveWatchers {
  private readonly byVehicle = new Map<string, Set<LiveListener>>();

  constructor(private readonly log: Logger) {}

  /** Hears the vehicle's events until the returned function is called. */
  watch(vehicleId: string, listener: LiveListener): () => void {
    let set = this.byVehicle.get(vehicleId);
    if (!set) this.byVehicle.set(vehicleId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.byVehicle.get(vehicleId) === set) this.byVehicle.delete(vehicleId);
    };
  }

  /** Whether anyone watches the vehicle (to spare building events nobody hears). */
  watched(vehicleId: string): boolean {
    return this.byVehicle.size > 0 && this.byVehicle.has(vehicleId);
  }

  /** Tells the vehicle's watchers now. */
  emit(vehicleId: string, event: LiveEvent): void {
    if (this.byVehicle.size === 0) return;
    const set = this.byVehicle.get(vehicleId);
    if (!set) return;
    for (const l of set) {
      try {
        l(event);
      } catch (err) {
        this.log.error({ err, vehicle: vehicleId }, 'live watcher failed');
      }
    }
  }
}
