/**
 * The vehicles this node has peers of (one VehicleLink each), and what the whole cluster holds of
 * them: this node's part plus what the Cluster says of the other nodes.
 */
import type { Cluster } from '../cluster/cluster.js';
import type { Peer } from './peer.js';
import { VehicleLink } from './vehicle-link.js';

export type LinkKind = 'v2' | 'mqtt' | 'v2+mqtt' | null;

export class VehicleLinks {
  private readonly map = new Map<string, VehicleLink>();

  constructor(private readonly cluster: Cluster) {}

  get(vehicleId: string): VehicleLink | undefined {
    return this.map.get(vehicleId);
  }

  /** The vehicle's link, made when this node has no peer of it yet. */
  getOrCreate(vehicleId: string, ownerId: number): VehicleLink {
    let link = this.map.get(vehicleId);
    if (!link) {
      this.map.set(vehicleId, (link = new VehicleLink(vehicleId, ownerId)));
      link.shownOnline = this.isOnline(link);
    }
    return link;
  }

  /** Forgets a link without peers. */
  prune(link: VehicleLink): void {
    if (link.isEmpty && this.map.get(link.vehicleId) === link) this.map.delete(link.vehicleId);
  }

  /** Tells the cluster what this node holds of the vehicle now. */
  announce(link: VehicleLink): void {
    if (!this.cluster.clustered) return;
    this.cluster.announce(link.vehicleId, { car: link.car !== null, v3: link.v3 !== null, apps: link.appCount, batches: link.batches.size });
  }

  /** Whether the vehicle is connected on either link, on any node. */
  isOnline(link: VehicleLink): boolean {
    if (link.online) return true;
    const r = this.cluster.remote(link.vehicleId);
    return r.carNode !== null || r.v3Node !== null;
  }

  /** The vehicle's apps on every node: what the car hears as `Z<n>`. */
  appCount(link: VehicleLink): number {
    return link.appCount + this.cluster.remote(link.vehicleId).apps;
  }

  /** Which links the vehicle is on now (on any node): `v2`, `mqtt`, `v2+mqtt` or null. */
  linkKind(vehicleId: string): LinkKind {
    const link = this.map.get(vehicleId);
    const r = this.cluster.remote(vehicleId);
    const v2 = Boolean(link?.car) || r.carNode !== null;
    const v3 = Boolean(link?.v3) || r.v3Node !== null;
    if (v2 && v3) return 'v2+mqtt';
    return v2 ? 'v2' : v3 ? 'mqtt' : null;
  }

  /** Connection counts as the HTTP API reports them (the whole cluster's). */
  counts(vehicleId: string): { net: number; apps: number; batches: number } {
    const link = this.map.get(vehicleId);
    const r = this.cluster.remote(vehicleId);
    const online = Boolean(link?.online) || r.carNode !== null || r.v3Node !== null;
    return { net: online ? 1 : 0, apps: (link?.appCount ?? 0) + r.apps, batches: (link?.batches.size ?? 0) + r.batches };
  }

  /** How many vehicles this node has peers of (at least one each): a size hint for a sweep of `peers()`. */
  get size(): number {
    return this.map.size;
  }

  /** Every logged-in peer of this node. */
  *peers(): Iterable<Peer> {
    for (const link of this.map.values()) {
      if (link.car) yield link.car;
      yield* link.apps;
      yield* link.batches;
    }
  }

  /** How many connections of each kind this node holds (for `/metrics`; walks every link). */
  connectionCounts(): { car: number; app: number; batch: number; mqttModule: number; apiSession: number } {
    const n = { car: 0, app: 0, batch: 0, mqttModule: 0, apiSession: 0 };
    for (const link of this.map.values()) {
      if (link.car) n.car++;
      n.app += link.apps.size;
      n.batch += link.batches.size;
      if (link.v3) n.mqttModule++;
      n.apiSession += link.apiApps.size;
    }
    return n;
  }
}
