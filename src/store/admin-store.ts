/**
 * What the operator's page reads (issue 31, docs/accounts.md "The operator's page"), part of the
 * Store on both databases (`store.admin`): the users with their vehicle counts and the vehicles
 * with their owners, searched and in pages, and the vehicles' traffic from the utilisation table.
 * Reads only; the changes go through the Store's own calls (setOwnerFlags, removeOwner, …).
 */
import type { Owner } from './types.js';

/** A page of a list: `search` (a part of a name, an id or a mail address, any case), `limit` rows after `offset`. */
export interface PageQuery {
  search?: string;
  limit: number;
  offset: number;
}

export interface AdminUser extends Owner {
  /** The vehicles the user owns. */
  vehicles: number;
}

export interface AdminVehicle {
  id: string;
  name: string;
  ownerName: string;
  type: string;
  /** Time of the last stored car message; null when the car never sent one. */
  lastUpdate: number | null;
  created: number;
}

/** A page and the number of rows the search found in all. */
export interface Page<T> {
  total: number;
  rows: T[];
}

/** Bytes to and from a vehicle's clients and car, summed over its client types. */
export interface TrafficSum {
  today: number;
  month: number;
}

export interface AdminStore {
  /** Users whose name or mail address holds `search`, ordered by name. */
  users(q: PageQuery): Promise<Page<AdminUser>>;
  /** Vehicles whose id, name or owner's name holds `search`, ordered by id. */
  vehicles(q: PageQuery): Promise<Page<AdminVehicle>>;
  /** The traffic of these vehicles (rx + tx) since the day `today` and since the day `since` (UTC day starts, epoch seconds). */
  traffic(vehicleIds: readonly string[], today: number, since: number): Promise<Map<string, TrafficSum>>;
}

/** A LIKE pattern that finds `text` anywhere (`\` escapes the pattern's own characters). */
export const containing = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
