/**
 * Sign-up and recovery (issue 31, docs/accounts.md "Sign-up and recovery"), part of the Store on
 * both databases (`store.signup`):
 * - owners made by a sign-up: with a mail address (unique, compared case-insensitively) and not
 *   verified until the mailed link is followed;
 * - the single-use tokens mailed to an owner (`account_tokens`: verify the address, reset the
 *   password), stored as their SHA-256 only, with an expiry; taking one deletes it;
 * - invitation codes (`invites`, `--registration invite`), stored as their SHA-256 only, with the
 *   uses left and an optional expiry.
 * Direct writes; nothing cached here (the SQLite owner cache is emptied when an owner changes).
 */
import type { Owner, OwnerWithSecret } from './types.js';

export type AccountTokenPurpose = 'verify' | 'reset';

export interface AccountToken {
  /** SHA-256 of the token (hex). */
  tokenHash: string;
  ownerId: number;
  purpose: AccountTokenPurpose;
  /** Epoch seconds after which it is refused. */
  expires: number;
  created: number;
}

export interface Invite {
  /** SHA-256 of the code (hex). */
  codeHash: string;
  usesLeft: number;
  /** Epoch seconds after which it is refused; null: never. */
  expires: number | null;
  created: number;
}

/** A signed-up owner, or which of its keys another owner holds already. */
export type NewOwnerResult = { owner: Owner } | { taken: 'name' | 'email' };

export interface SignupStore {
  /**
   * Adds an owner with a mail address, not verified, with every right of the account password
   * (`*`). A name or an address another owner holds (any case) is answered, not thrown.
   */
  addUnverifiedOwner(name: string, passwordHash: string, email: string, created: number): Promise<NewOwnerResult>;
  /** The owner with that mail address (any case); undefined when none has it. */
  ownerByEmail(email: string): Promise<OwnerWithSecret | undefined>;
  /** Marks the owner's address verified; false when there is no such owner. */
  setVerified(ownerId: number): Promise<boolean>;

  /**
   * Removes up to `limit` signed-up owners never verified that were made before `before` and own
   * no vehicle (their tokens go with them); their names.
   */
  purgeUnverified(before: number, limit: number): Promise<string[]>;

  /** Stores a token (expired tokens of every owner are deleted on the way). */
  addToken(token: AccountToken): Promise<void>;
  /**
   * Takes a token: deleted whatever it is; its owner's id when it is of `purpose` and not expired
   * at `now`, else undefined.
   */
  takeToken(tokenHash: string, purpose: AccountTokenPurpose, now: number): Promise<number | undefined>;
  /** Deletes the owner's tokens of `purpose` (the older links of a resend or a reset). */
  removeTokens(ownerId: number, purpose: AccountTokenPurpose): Promise<void>;

  addInvite(invite: Invite): Promise<void>;
  /** Every invitation code, newest first. */
  listInvites(): Promise<Invite[]>;
  /** Removes the codes whose hash starts with `hashPrefix` (hex); how many. */
  removeInvites(hashPrefix: string): Promise<number>;
  /**
   * Uses the code once: true when it had a use left and had not expired at `now` (one use is
   * gone then; a code with none left is deleted).
   */
  useInvite(codeHash: string, now: number): Promise<boolean>;
}

/** The columns of `account_tokens` and `invites` as the databases give them. */
export interface InviteRow {
  code_hash: string;
  uses_left: number;
  expires: number | string | null;
  created: number | string;
}

export const toInvite = (r: InviteRow): Invite => ({
  codeHash: r.code_hash,
  usesLeft: Number(r.uses_left),
  expires: r.expires === null ? null : Number(r.expires),
  created: Number(r.created),
});
