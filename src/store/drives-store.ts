/**
 * Drives, charges and places (issue 28), part of the Store on both databases (`store.drives`).
 *
 * Each vehicle's sessions are written by the one tracker that follows the vehicle (on the node its
 * car is connected to) through `commitTracker`: its checkpoint and the session changes in one
 * transaction, guarded by a sequence number, so that two nodes never both write (the loser reloads)
 * and a restart continues from the checkpoint without losing or doubling a session. Direct,
 * durable writes (sessions change a few times per drive or charge, not per record).
 *
 * Times epoch seconds, vehicle ids upper-cased, as everywhere in the store.
 */
import type { ChargeSession, DriveSession, Place, PlaceInput, Session, SessionOp } from '../core/drives/types.js';

export interface StoredDrive extends DriveSession {
  id: number;
  vehicleId: string;
}

export interface StoredCharge extends ChargeSession {
  id: number;
  vehicleId: string;
}

export type StoredSession = StoredDrive | StoredCharge;

/** A tracker's checkpoint: its state (JSON text) and the sequence number of the commit that wrote it. */
export interface TrackerCheckpoint {
  seq: number;
  state: string;
}

export interface DrivesStore {
  /** The vehicle's tracker checkpoint, undefined when none was ever written. */
  loadTracker(vehicleId: string): Promise<TrackerCheckpoint | undefined>;
  /**
   * In one transaction, only when the stored sequence number is `expectedSeq` (0: no checkpoint
   * yet): applies `ops` (upsert by vehicle, kind and key; remove by key) and stores `state` with
   * the next sequence number, which it returns. Returns null, changing nothing, when another
   * writer got there first.
   */
  commitTracker(vehicleId: string, expectedSeq: number, state: string, ops: readonly SessionOp[]): Promise<number | null>;
  /**
   * Rebuild: in one transaction, makes the vehicle's sessions exactly `sessions` (upsert by kind
   * and key, so a session that stays keeps its id; every other one removed) and stores `state` as
   * the checkpoint (next sequence number, whatever the stored one was). Returns the new sequence number.
   */
  replaceSessions(vehicleId: string, sessions: readonly Session[], state: string): Promise<number>;
  /**
   * Drives that overlap [from, to] (start ≤ to and (end ?? +∞) ≥ from), oldest first; `path` is
   * [] unless `withPath`.
   */
  listDrives(vehicleId: string, from: number, to: number, withPath?: boolean): Promise<StoredDrive[]>;
  /** One drive with its path. */
  getDrive(vehicleId: string, id: number): Promise<StoredDrive | undefined>;
  /** As listDrives; `samples` is [] unless `withSamples`. */
  listCharges(vehicleId: string, from: number, to: number, withSamples?: boolean): Promise<StoredCharge[]>;
  /** One charge with its samples. */
  getCharge(vehicleId: string, id: number): Promise<StoredCharge | undefined>;
  /**
   * Re-tagging after a place changed: replaces the place and cost fields (fromPlace/toPlace;
   * place/cost/currency) of these sessions, found by id within the vehicle; paths and samples are
   * left as stored.
   */
  retagSessions(vehicleId: string, sessions: readonly StoredSession[]): Promise<void>;

  // --- places, per owner ---
  /** Ordered by id. */
  listPlaces(ownerId: number): Promise<Place[]>;
  addPlace(ownerId: number, place: PlaceInput): Promise<Place>;
  /** undefined when the owner has no such place. */
  updatePlace(ownerId: number, id: number, place: PlaceInput): Promise<Place | undefined>;
  removePlace(ownerId: number, id: number): Promise<boolean>;
}
