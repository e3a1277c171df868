/**
 * Shares (issue 31, docs/accounts.md "Sharing"), part of the Store on both databases
 * (`store.shares`): an owner lets another user see a vehicle (`view`) or also command it
 * (`control`). One row per (vehicle, user); a share goes with its vehicle and with either account
 * (ON DELETE CASCADE). Direct writes, and nothing cached: a revoked share is refused by the next
 * request on every process that shares the database.
 */
import type { Vehicle } from './types.js';

export type ShareAccess = 'view' | 'control';

export const SHARE_ACCESS: readonly ShareAccess[] = ['view', 'control'];

export interface Share {
  vehicleId: string;
  userId: number;
  /** The user the vehicle is shared with (as stored). */
  userName: string;
  access: ShareAccess;
  created: number;
}

/** A vehicle shared with a user, with the access it was given. */
export interface SharedVehicle {
  vehicle: Vehicle;
  access: ShareAccess;
}

export interface SharesStore {
  /**
   * Shares the vehicle with the user, or changes the access of its share (`created` kept).
   * @throws VtsError VTS_ERR_UNKNOWN_VEHICLE, VTS_ERR_UNKNOWN_USER
   */
  putShare(vehicleId: string, userId: number, access: ShareAccess, time: number): Promise<Share>;
  /** The access the user was given to the vehicle, undefined when none. */
  getShare(vehicleId: string, userId: number): Promise<ShareAccess | undefined>;
  /** The vehicle's shares, ordered by user name. */
  listShares(vehicleId: string): Promise<Share[]>;
  /** The vehicles shared with the user, ordered by vehicle id. */
  listSharedWith(userId: number): Promise<SharedVehicle[]>;
  /** @returns false when there was no such share */
  removeShare(vehicleId: string, userId: number): Promise<boolean>;
}

export interface ShareRow {
  vehicle_id: string;
  user_id: number;
  user_name: string;
  access: string;
  created: number;
}

export const SHARE_COLUMNS = 's.vehicle_id, s.user_id, o.name AS user_name, s.access, s.created';

export function toShare(r: ShareRow): Share {
  return { vehicleId: r.vehicle_id, userId: Number(r.user_id), userName: r.user_name, access: r.access as ShareAccess, created: Number(r.created) };
}

/** The vehicle columns of `listSharedWith` (vehicles v, its owner o) and the share's access. */
export const SHARED_VEHICLE_COLUMNS = `v.id, v.owner_id, o.name AS owner_name, v.name, v.car_password, v.type,
  v.paranoid_token, v.last_update, v.created, s.access`;
