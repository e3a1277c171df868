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
  /** MP app connections (`A`), batch clients (`B`), and HTTP API sessions and live streams registered as apps (`GET /api/vehicle/<id>`) by key: made when the first comes (a parked fleet has none). */
  private appSet: Set<Peer> | null = null;
  private batchSet: Set<Peer> | null = null;
  private apiAppSet: Set<string> | null = null;
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
  /** The live record of each code waiting for its commit to be told to the car-data observers (src/hub/handlers/car-data.ts); none once told. */
  heard: Map<string, HeardRecord> | undefined;

  constructor(
    readonly vehicleId: string,
    readonly ownerId: number,
  ) {}

  get apps(): ReadonlySet<Peer> {
    return this.appSet ?? NONE;
  }

  get batches(): ReadonlySet<Peer> {
    return this.batchSet ?? NONE;
  }

  get apiApps(): ReadonlySet<string> {
    return this.apiAppSet ?? NONE;
  }

  /** Adds an MP app (`A`) or batch client to the vehicle's. */
  addPeer(peer: Peer, kind: 'app' | 'batch'): void {
    if (kind === 'app') (this.appSet ??= new Set()).add(peer);
    else (this.batchSet ??= new Set()).add(peer);
  }

  /** Removes an MP app or batch client; false when it was not there. */
  deletePeer(peer: Peer, kind: 'app' | 'batch'): boolean {
    const set = kind === 'app' ? this.appSet : this.batchSet;
    if (!set?.delete(peer)) return false;
    if (set.size === 0) {
      if (kind === 'app') this.appSet = null;
      else this.batchSet = null;
    }
    return true;
  }

  addApiApp(key: string): void {
    (this.apiAppSet ??= new Set()).add(key);
  }

  deleteApiApp(key: string): boolean {
    if (!this.apiAppSet?.delete(key)) return false;
    if (this.apiAppSet.size === 0) this.apiAppSet = null;
    return true;
  }

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

const NONE: ReadonlySet<never> = new Set<never>();
