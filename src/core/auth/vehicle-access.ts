/**
 * The access model of a vehicle (issue 31, docs/accounts.md "Sharing"): what a user may do with a
 * vehicle, from who owns it and the share the owner gave (none, `view`, `control`). The one place
 * that answers; every adapter asks it (through src/auth/vehicle-access.ts, which reads the store).
 *
 * - `owner`: everything, the car password, the shares and removing the vehicle included;
 * - `control`: what `view` may, and commands;
 * - `view`: the state, the history, drives and charges;
 * - `none`: nothing (answered as an unknown vehicle, so nobody learns that it exists).
 */

export type Access = 'owner' | 'control' | 'view' | 'none';

/** What a call needs: reading, commanding, or being the owner. */
export type Need = 'view' | 'control' | 'owner';

const RANK: Record<Access, number> = { none: 0, view: 1, control: 2, owner: 3 };

/** The user's access to a vehicle owned by `ownerId`, with the user's share (undefined: none). */
export function accessOf(userId: number, ownerId: number, share: 'view' | 'control' | undefined): Access {
  if (userId === ownerId) return 'owner';
  return share ?? 'none';
}

/** Whether the access is enough for the need. */
export function allows(access: Access, need: Need): boolean {
  return RANK[access] >= RANK[need];
}

/**
 * Why a user who sees the vehicle (`view` or `control`) may not do what needs `need`, for the
 * message of a 403 VTS_ERR_FORBIDDEN; null when it may (or when the user does not see the vehicle
 * at all: that is answered as an unknown vehicle).
 */
export function refusal(access: Access, need: Need): string | null {
  if (access === 'none' || allows(access, need)) return null;
  if (need === 'control') return 'this vehicle is shared with you to view only: commands need control';
  return 'only the owner of this vehicle may do that';
}
