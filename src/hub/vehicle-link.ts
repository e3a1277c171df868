/** Who is connected to one vehicle right now (in memory only; mp-protocol.md §8, §13). */
import { CommandQueue } from './command-queue.js';
import type { Peer } from './peer.js';
import type { V3Link } from './v3-link.js';

export class VehicleLink {
  /** The v2 (MP) car connection. */
  car: Peer | null = null;
  /** The v3 (MQTT) link, while the module is online on the broker. */
  v3: V3Link | null = null;
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

  /** Whether the vehicle is connected on either link (`Z1` to apps, `v_net_connected`). */
  get online(): boolean {
    return this.car !== null || this.v3 !== null;
  }

  get isEmpty(): boolean {
    return this.car === null && this.v3 === null && this.apps.size === 0 && this.batches.size === 0 && this.apiApps.size === 0;
  }
}
