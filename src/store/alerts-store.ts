/**
 * Alert rules and the engines' state (issue 30, docs/alerts.md), part of the Store on both
 * databases (`store.alerts`):
 * - each vehicle's rules (`alert_rules`: the kind and its settings as checked by
 *   src/core/alerts/rules.ts, kept as JSON), with a change counter that tells every node of a
 *   cluster, with one small read, that some rule changed somewhere;
 * - each vehicle's engine state (`alert_state`: src/core/alerts/engine.ts AlertState as JSON) with
 *   a version: a save names the version it was computed from and is refused when another writer
 *   (another node, or this one before a restart) saved since, so what fired is decided by one
 *   writer only and never fired twice;
 * - each owner's delivery settings (`alert_settings`: quiet hours).
 * Rules and state go with their vehicle, settings with their owner (ON DELETE CASCADE). Direct
 * writes; nothing cached here.
 */
import type { QuietHours } from '../core/alerts/delivery.js';
import type { AlertRule, RuleSettings } from '../core/alerts/rules.js';

/** A stored rule: its settings, its id (unique in the database) and when it was made. */
export type StoredRule = AlertRule & { created: number };

/** A vehicle's engine state as stored. */
export interface SavedAlertState {
  /** Counts the saves: a save must name the version it read. */
  version: number;
  /** The state as JSON text. */
  state: string;
}

/** A vehicle that has at least one rule. */
export interface RuledVehicle {
  vehicleId: string;
  ownerId: number;
  /** Changes whenever the vehicle's rules change (their count and the counter of the last write). */
  rulesTag: string;
}

export interface AlertsStore {
  /** The vehicle's rules, ordered by id. */
  listRules(vehicleId: string): Promise<StoredRule[]>;
  /**
   * Adds a rule.
   * @throws VtsError VTS_ERR_UNKNOWN_VEHICLE when there is no such vehicle
   */
  addRule(vehicleId: string, rule: RuleSettings, time: number): Promise<StoredRule>;
  /** Replaces a rule's settings; undefined when the vehicle has no rule of that id. */
  updateRule(vehicleId: string, id: number, rule: RuleSettings): Promise<StoredRule | undefined>;
  /** @returns false when the vehicle has no rule of that id */
  removeRule(vehicleId: string, id: number): Promise<boolean>;
  /** Every vehicle with rules (one read for a whole fleet), ordered by vehicle id. */
  ruledVehicles(): Promise<RuledVehicle[]>;
  /** A number that changes whenever a rule is added, changed or removed anywhere (0 before the first). */
  rulesVersion(): Promise<number>;

  /** The vehicle's engine state; undefined when none was saved. */
  loadState(vehicleId: string): Promise<SavedAlertState | undefined>;
  /**
   * Saves the state computed from `version` (0: from none): the new version, or null when another
   * writer saved since (nothing is written; read it again and start from there). A vehicle that
   * is gone gives null too. `durable` false (a save that raises no alert): on SQLite the commit
   * does not wait for the disk (it survives a crash of the process, not a power cut), as the
   * store's car writes.
   */
  saveState(vehicleId: string, version: number, state: string, durable?: boolean): Promise<number | null>;

  /** The owner's quiet hours; null when none are set. */
  getQuietHours(ownerId: number): Promise<QuietHours | null>;
  /**
   * Sets (null: clears) the owner's quiet hours.
   * @throws VtsError VTS_ERR_UNKNOWN_USER when there is no such owner
   */
  setQuietHours(ownerId: number, quiet: QuietHours | null): Promise<void>;
}
