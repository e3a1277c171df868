/**
 * The lookup of the access model (src/core/auth/vehicle-access.ts): what a user may do with a
 * vehicle, read from the store at each call (the vehicle, then the share when the user is not the
 * owner). Shares are never cached (src/store/shares-store.ts), so a revoked share is refused by
 * the next request on every node. The HTTP calls, the MP app login and the MQTT ACL ask here.
 */
import { accessOf, allows, type Access, type Need } from '../core/auth/vehicle-access.js';
import { shareAllows, shareReceives, vehicleOfTopic } from '../core/mqtt/share-acl.js';
import type { Store, Vehicle } from '../store/store.js';

export interface VehicleAccess {
  vehicle: Vehicle;
  /** never `none`: a vehicle the user may not see is undefined */
  access: Exclude<Access, 'none'>;
}

/** The vehicle `id` (any case) with the user's access to it; undefined when unknown or not shared with the user. */
export async function vehicleAccess(store: Store, userId: number, id: string): Promise<VehicleAccess | undefined> {
  if (id === '') return undefined;
  const vehicle = await store.getVehicle(id.toUpperCase());
  if (!vehicle) return undefined;
  const access = vehicle.ownerId === userId ? 'owner' : accessOf(userId, vehicle.ownerId, await store.shares.getShare(vehicle.id, userId));
  return access === 'none' ? undefined : { vehicle, access };
}

/** The user's vehicles: own ones (access `owner`), then those shared with the user, each ordered by id. */
export async function visibleVehicles(store: Store, userId: number): Promise<VehicleAccess[]> {
  const [own, shared] = await Promise.all([store.listVehicles(userId), store.shares.listSharedWith(userId)]);
  return [...own.map((vehicle) => ({ vehicle, access: 'owner' as const })), ...shared.map((s) => ({ vehicle: s.vehicle, access: s.access }))];
}

/** Whether the user may do what needs `need` with the vehicle (store read at each call). */
export async function userMay(store: Store, userId: number, vehicleId: string, need: Need): Promise<boolean> {
  const a = await vehicleAccess(store, userId, vehicleId);
  return a !== undefined && allows(a.access, need);
}

/**
 * Whether the user `userName` may use an MQTT topic of a vehicle shared with it (the Mosquitto
 * auth plugin's ACL, src/http/mqapi/routes.ts; the embedded broker asks src/mqtt/shared-vehicles.ts):
 * read (subscribe, and receive when `deliver`) or write (publish). Store read at each call.
 */
export async function sharedTopicAllowed(store: Store, userName: string, topic: string, mode: 'read' | 'write', deliver: boolean): Promise<boolean> {
  const t = vehicleOfTopic(topic);
  if (!t || t.owner === userName) return false;
  const user = await store.getOwnerByName(userName);
  if (!user) return false;
  const a = await vehicleAccess(store, user.id, t.vehicleId);
  if (!a || a.access === 'owner' || a.vehicle.ownerName !== t.owner) return false;
  if (!shareAllows(a.access, t.rest, mode)) return false;
  return mode === 'write' || !deliver || shareReceives(a.access, t.rest);
}
