/** Group messages (docs/protocol/mp.md §14) of this node's cars and apps, across all owners (a cluster shares the cars' data: src/hub/cluster/cluster.ts). */
import type { Peer } from './peer.js';

export class GroupRegistry {
  /** group → vehicle id → latest group data */
  private readonly data = new Map<string, Map<string, string>>();
  /** group → subscribed apps */
  private readonly subscribers = new Map<string, Set<Peer>>();
  /** peer → groups it subscribed to (apps) or posted to (cars), for cleanup */
  private readonly byPeer = new Map<Peer, Set<string>>();

  /** Stores a car's group data; returns the subscribers to tell. */
  update(car: Peer, group: string, groupData: string): Iterable<Peer> {
    let members = this.data.get(group);
    if (!members) this.data.set(group, (members = new Map()));
    members.set(car.vehicleId, groupData);
    this.remember(car, group);
    return this.subscribers.get(group) ?? [];
  }

  subscribe(app: Peer, group: string): void {
    let subs = this.subscribers.get(group);
    if (!subs) this.subscribers.set(group, (subs = new Set()));
    subs.add(app);
    this.remember(app, group);
  }

  /** Current data of every vehicle in the group: [vehicleId, groupData]. */
  members(group: string): Iterable<[string, string]> {
    return this.data.get(group) ?? [];
  }

  /** The apps of this node subscribed to the group. */
  subscribersOf(group: string): Iterable<Peer> {
    return this.subscribers.get(group) ?? [];
  }

  /** Drops what a leaving car posted, or a leaving app's subscriptions; returns the groups a car left. */
  forget(peer: Peer): string[] {
    const groups = this.byPeer.get(peer);
    if (!groups) return [];
    this.byPeer.delete(peer);
    for (const group of groups) {
      if (peer.clientType === 'C') {
        const members = this.data.get(group);
        members?.delete(peer.vehicleId);
        if (members?.size === 0) this.data.delete(group);
      } else {
        const subs = this.subscribers.get(group);
        subs?.delete(peer);
        if (subs?.size === 0) this.subscribers.delete(group);
      }
    }
    return peer.clientType === 'C' ? [...groups] : [];
  }

  private remember(peer: Peer, group: string): void {
    let groups = this.byPeer.get(peer);
    if (!groups) this.byPeer.set(peer, (groups = new Set()));
    groups.add(group);
  }
}
