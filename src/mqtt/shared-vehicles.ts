/**
 * The embedded broker's part of sharing (docs/accounts.md "Sharing"): whether a user may use a
 * topic of another owner's vehicle, read from the store at each subscription and publish (the
 * access model, src/auth/vehicle-access.ts; the topic rules, src/core/mqtt/share-acl.ts). What a
 * connection was granted is remembered for the forwarding of messages, which cannot wait for the
 * store; a revoked share closes the user's connections that hold it (`revoked`), on every node.
 */
import type { Client } from 'aedes';
import { vehicleAccess } from '../auth/vehicle-access.js';
import { shareAllows, shareReceives, vehicleOfTopic } from '../core/mqtt/share-acl.js';
import type { Store } from '../store/store.js';

export class SharedVehicles {
  /** Per connection: the shared vehicles it was granted (id → access). */
  private readonly granted = new WeakMap<Client, Map<string, 'view' | 'control'>>();
  private readonly clients = new Set<Client>();

  constructor(private readonly store: Store) {}

  /** Whether the user (id `userId`, logged in as `name`) may use the topic of a vehicle shared with it. */
  async allows(client: Client, userId: number, name: string, topic: string, mode: 'read' | 'write'): Promise<boolean> {
    const t = vehicleOfTopic(topic);
    if (!t || t.owner === name) return false;
    const a = await vehicleAccess(this.store, userId, t.vehicleId);
    if (!a || a.access === 'owner' || a.vehicle.ownerName !== t.owner) return false;
    if (!shareAllows(a.access, t.rest, mode)) return false;
    let map = this.granted.get(client);
    if (!map) this.granted.set(client, (map = new Map()));
    map.set(a.vehicle.id, a.access);
    this.clients.add(client);
    return true;
  }

  /** Whether a message on the topic may reach the client: null when the topic is not of a vehicle shared with it. */
  receives(client: Client, topic: string): boolean | null {
    const map = this.granted.get(client);
    if (!map) return null; // most connections: no shared vehicle, nothing to look at per message
    const t = vehicleOfTopic(topic);
    const access = t && map.get(t.vehicleId);
    if (!t || !access) return null;
    return shareReceives(access, t.rest);
  }

  /** The connections of `isUser` granted the vehicle: they are to be closed (the share was revoked). */
  holding(vehicleId: string, isUser: (c: Client) => boolean): Client[] {
    return [...this.clients].filter((c) => this.granted.get(c)?.has(vehicleId) === true && isUser(c));
  }

  forget(client: Client): void {
    this.clients.delete(client);
    this.granted.delete(client);
  }
}
