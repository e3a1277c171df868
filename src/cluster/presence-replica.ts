/**
 * This node's copy of what the other nodes hold of each vehicle (pure: no I/O). Each node writes
 * its own part (absolute values, in order on one connection), so applying every part in the order
 * it was published leaves the copy equal to the latest state, whatever was loaded before.
 */
import { NO_REMOTE, type NodePresence, type RemotePresence } from '../hub/cluster/cluster.js';

const isEmpty = (p: NodePresence): boolean => !p.car && !p.v3 && p.apps === 0 && p.batches === 0;

export class PresenceReplica {
  /** vehicle → node → its part */
  private readonly byVehicle = new Map<string, Map<string, NodePresence>>();
  /** node → vehicles it holds something of */
  private readonly byNode = new Map<string, Set<string>>();
  /** vehicle → the sum, computed when asked after a change */
  private readonly sums = new Map<string, RemotePresence>();

  /** Sets a node's part of a vehicle; returns true when it changed. */
  set(node: string, vehicleId: string, p: NodePresence): boolean {
    const parts = this.byVehicle.get(vehicleId);
    const old = parts?.get(node);
    if (isEmpty(p)) {
      if (!old) return false;
      parts!.delete(node);
      if (parts!.size === 0) this.byVehicle.delete(vehicleId);
      const vehicles = this.byNode.get(node);
      vehicles?.delete(vehicleId);
      if (vehicles?.size === 0) this.byNode.delete(node);
    } else {
      if (old && old.car === p.car && old.v3 === p.v3 && old.apps === p.apps && old.batches === p.batches && old.claim === p.claim) return false;
      if (parts) parts.set(node, { ...p });
      else this.byVehicle.set(vehicleId, new Map([[node, { ...p }]]));
      let vehicles = this.byNode.get(node);
      if (!vehicles) this.byNode.set(node, (vehicles = new Set()));
      vehicles.add(vehicleId);
    }
    this.sums.delete(vehicleId);
    return true;
  }

  /** Forgets everything of a node; returns the vehicles whose sums changed. */
  dropNode(node: string): string[] {
    const vehicles = [...(this.byNode.get(node) ?? [])];
    for (const v of vehicles) this.set(node, v, { car: false, v3: false, apps: 0, batches: 0 });
    this.byNode.delete(node);
    return vehicles;
  }

  /** Sets a node's whole part (read again from Redis); returns the vehicles whose part changed. */
  replaceNode(node: string, parts: ReadonlyMap<string, NodePresence>): string[] {
    const changed: string[] = [];
    for (const v of [...(this.byNode.get(node) ?? [])]) {
      if (!parts.has(v) && this.set(node, v, { car: false, v3: false, apps: 0, batches: 0 })) changed.push(v);
    }
    for (const [v, p] of parts) if (this.set(node, v, p)) changed.push(v);
    return changed;
  }

  /** Forgets everything; returns the vehicles that had parts. */
  clear(): string[] {
    const vehicles = [...this.byVehicle.keys()];
    this.byVehicle.clear();
    this.byNode.clear();
    this.sums.clear();
    return vehicles;
  }

  nodes(): string[] {
    return [...this.byNode.keys()];
  }

  /** What the other nodes hold of the vehicle together. */
  remote(vehicleId: string): RemotePresence {
    const cached = this.sums.get(vehicleId);
    if (cached) return cached;
    const parts = this.byVehicle.get(vehicleId);
    if (!parts) return NO_REMOTE;
    let carNode: string | null = null;
    let carClaim = -1;
    let v3Node: string | null = null;
    let apps = 0;
    let batches = 0;
    const interested: string[] = [];
    for (const [node, p] of parts) {
      // the car on two nodes: one died or is closing it; the newest login (a claim being made) wins
      const claim = p.claim ?? Infinity;
      if (p.car && claim > carClaim) {
        carNode = node;
        carClaim = claim;
      }
      if (p.v3 && v3Node === null) v3Node = node;
      apps += p.apps;
      batches += p.batches;
      if (p.apps > 0 || p.batches > 0) interested.push(node);
    }
    const sum: RemotePresence = { carNode, v3Node, apps, batches, interested };
    this.sums.set(vehicleId, sum);
    return sum;
  }
}
