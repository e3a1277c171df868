/**
 * ABRP links (issue 29, docs/abrp.md), part of the Store on both databases (`store.abrp`): per
 * vehicle, the owner's ABRP user token (sealed by the caller: src/core/crypto/sealed-secret.ts;
 * the store never sees it in clear) and the state of the sending, which lives here so that it
 * survives a restart and a failover to another node: the last telemetry sent and when, the last
 * error, the failures in a row and when to try again.
 *
 * Results are written only while the row still holds the token they were sent with: a result of a
 * send with a replaced token (the owner linked again meanwhile) or of a removed link changes
 * nothing. A link goes with its vehicle and with its owner (ON DELETE CASCADE). Direct writes.
 */

/** `pending`: linked, nothing sent yet; `ok`: the last send succeeded; `failing`: backing off; `refused`: ABRP refused the token (stopped). */
export type AbrpLinkState = 'pending' | 'ok' | 'failing' | 'refused';

export const ABRP_LINK_STATES: readonly AbrpLinkState[] = ['pending', 'ok', 'failing', 'refused'];

export interface AbrpLink {
  vehicleId: string;
  ownerId: number;
  /** The sealed token (never the token itself). */
  token: string;
  state: AbrpLinkState;
  created: number;
  /** When telemetry was last accepted, and that telemetry (JSON text, '' none). */
  lastSent: number | null;
  lastTlm: string;
  /** The last failure's reason ('' none) and time. */
  lastError: string;
  lastErrorTime: number | null;
  /** Failures in a row since the last success. */
  failures: number;
  /** No send before this (back-off), null: none. */
  retryAt: number | null;
}

/** A failed send: `failing` with the time of the next try, or `refused` (stopped). */
export interface AbrpFailure {
  state: 'failing' | 'refused';
  error: string;
  time: number;
  failures: number;
  retryAt: number | null;
}

export interface AbrpStore {
  /**
   * Links the vehicle (or links it again with a new token): state `pending`, the results of the
   * old link forgotten.
   * @throws VtsError VTS_ERR_UNKNOWN_VEHICLE when there is no such vehicle
   */
  putLink(vehicleId: string, ownerId: number, sealedToken: string, time: number): Promise<AbrpLink>;
  getLink(vehicleId: string): Promise<AbrpLink | undefined>;
  /** The ids of the linked vehicles (one read for a whole fleet: which vehicles to look at). */
  listLinked(): Promise<string[]>;
  /** @returns false when there was no link */
  removeLink(vehicleId: string): Promise<boolean>;
  /** A send with `sealedToken` succeeded at `time` with `tlm`: state `ok`, no failures. False when the row no longer holds that token. */
  recordSent(vehicleId: string, sealedToken: string, time: number, tlm: string): Promise<boolean>;
  /** A send with `sealedToken` failed. False when the row no longer holds that token. */
  recordFailure(vehicleId: string, sealedToken: string, failure: AbrpFailure): Promise<boolean>;
}
