/** Who is connected to one vehicle on this node right now (in memory only; docs/protocol/mp.md §8, §13). */
import { CommandQueue } from '../commands/command-queue.js';
import type { Peer } from './peer.js';
import type { V3Link } from './v3-link.js';
import type { HeardRecord } from '../observers/car-data-observers.js';

export class VehicleLink {
  /** The v2 (MP) car connection. */
  car: Peer | null = null;
  /** The v3 (MQTT) link, while the module is online on the broker. */
  v3: V3Link | null = null;
  /** Command queue of the current car connection (a reconnecting car starts with an empty one). */
  commands = new CommandQueue();
  readonly apps = new Set<Peer>();
  readonly batches = new Set<Peer>();
  /** HTTP API sessions and live streams registered as apps (`GET /api/vehicle/<id>`), by key. */
  readonly apiApps = new Set<string>();
  /** The vehicle's paranoid token as stored (`ET`), kept here so that tokens apply in order. */
  paranoidToken = '';
  /** The online state (on any node) this node's clients were last told: `Z1` / `Z0`. */
  shownOnline = false;
  /** The app count (of the whole cluster) the car was last told (`Z<n>`); -1: none yet. */
  toldAppCount = -1;
  /** The cluster's claim number of the current car's login; undefined while it is being claimed. */
  carClaim: number | undefined;
  /** Claims another node superseded while this car's own claim was still pending. */
  supersededClaims: number[] = [];
  /** The last live record of each code told to the car-data observers (src/hub/handlers/car-data.ts). */
  heard: Map<string, HeardRecord> | undefined;

  constructor(
    readonly vehicleId: string,
    readonly ownerId: number,
  ) {}

  /** The count of this node's apps: MP apps plus HTTP API sessions and live streams (batch clients never). */
  get appCount(): number {
    return this.apps.size + this.apiApps.size;
  }

  /** Whether the vehicle is connected to this node on either link. */
  get online(): boolean {
    return this.car !== null || this.v3 !== null;
  }

  get isEmpty(): boolean {
    return this.car === null && this.v3 === null && this.apps.size === 0 && this.batches.size === 0 && this.apiApps.size === 0;
  }
}
