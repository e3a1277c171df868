/** Who is connected to one vehicle right now (in memory only; mp-protocol.md §8, §13). */
import { CommandQueue } from './command-queue.js';
import type { Peer } from './peer.js';

export class VehicleLink {
  car: Peer | null = null;
  /** Command queue of the current car connection (a reconnecting car starts with an empty one). */
  commands = new CommandQueue();
  readonly apps = new Set<Peer>();
  readonly batches = new Set<Peer>();
  /** HTTP API sessions registered as apps (`GET /api/vehicle/<id>`), by session key. */
  readonly apiApps = new Set<string>();
  /** The vehicle's paranoid token as stored (`ET`), kept here so that tokens apply in order. */
  paranoidToken = '';

  constructor(
    readonly vehicleId: string,
    readonly ownerId: number,
  ) {}

  /** The count the car gets as `Z<n>`: MP apps plus HTTP API sessions (batch clients never). */
  get appCount(): number {
    return this.apps.size + this.apiApps.size;
  }

  get isEmpty(): boolean {
    return this.car === null && this.apps.size === 0 && this.batches.size === 0 && this.apiApps.size === 0;
  }
}
