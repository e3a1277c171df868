/**
 * Alert rules, the engines' state and the owners' quiet hours on SQLite (AlertsStore,
 * src/store/alerts-store.ts). Direct writes on the store's connection (synchronous=FULL; NORMAL for
 * a state save that raises no alert); nothing cached, so what another process (a node of a
 * cluster) wrote is read as it is.
 */
import type Database from 'better-sqlite3';
import type { QuietHours } from '../../core/alerts/delivery.js';
import type { RuleSettings } from '../../core/alerts/rules.js';
import { VtsError } from '../../errors.js';
import type { AlertsStore, RuledVehicle, SavedAlertState, StoredRule } from '../alerts-store.js';
import { RULE_COLUMNS, RULED_SQL, settingsJson, toQuietHours, toRule, toRuled, toRules, type AlertRuleRow, type RuledRow } from '../alerts-rows.js';
import { isForeignKeyViolation } from './sqlite-errors.js';
import { relaxedCommit } from './sqlite-relaxed.js';

const BUMP = "UPDATE vts_meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) WHERE key = 'alert_rules_version' RETURNING CAST(value AS INTEGER)";

function prepareStatements(db: Database.Database) {
  return {
    list: db.prepare<[string], AlertRuleRow>(`SELECT ${RULE_COLUMNS} FROM alert_rules WHERE vehicle_id = ? ORDER BY id`),
    add: db.prepare<[string, string, number, number], AlertRuleRow>(`INSERT INTO alert_rules (vehicle_id, settings, created, rev) VALUES (?, ?, ?, ?) RETURNING ${RULE_COLUMNS}`),
    update: db.prepare<[string, number, string, number], AlertRuleRow>(`UPDATE alert_rules SET settings = ?, rev = ? WHERE vehicle_id = ? AND id = ? RETURNING ${RULE_COLUMNS}`),
    remove: db.prepare<[string, number]>('DELETE FROM alert_rules WHERE vehicle_id = ? AND id = ?'),
    bump: db.prepare<[], number>(BUMP).pluck(),
    version: db.prepare<[], string>("SELECT value FROM vts_meta WHERE key = 'alert_rules_version'").pluck(),
    ruled: db.prepare<[], RuledRow>(RULED_SQL),
    loadState: db.prepare<[string], { version: number; state: string }>('SELECT version, state FROM alert_state WHERE vehicle_id = ?'),
    firstState: db.prepare<[string, string]>('INSERT INTO alert_state (vehicle_id, version, state) VALUES (?, 1, ?) ON CONFLICT (vehicle_id) DO NOTHING'),
    nextState: db.prepare<[string, string, number]>('UPDATE alert_state SET version = version + 1, state = ? WHERE vehicle_id = ? AND version = ?'),
    getQuiet: db.prepare<[number], string | null>('SELECT quiet FROM alert_settings WHERE owner_id = ?').pluck(),
    setQuiet: db.prepare<[number, string | null]>(
      'INSERT INTO alert_settings (owner_id, quiet) VALUES (?, ?) ON CONFLICT (owner_id) DO UPDATE SET quiet = excluded.quiet',
    ),
  };
}

export class SqliteAlertsStore implements AlertsStore {
  private readonly s: ReturnType<typeof prepareStatements>;
  private readonly changeTx: <T>(fn: (rev: number) => T) => T;

  /** `open` throws VTS_ERR_STORE_CLOSED once the store is closed. */
  constructor(
    private readonly db: Database.Database,
    private readonly open: () => void,
  ) {
    this.s = prepareStatements(db);
    // the counter moves first: the rows written carry its new value
    const tx = db.transaction((fn: (rev: number) => unknown) => fn(this.s.bump.get()!));
    this.changeTx = <T>(fn: (rev: number) => T): T => tx.immediate(fn) as T;
  }

  async listRules(vehicleId: string): Promise<StoredRule[]> {
    this.open();
    return toRules(this.s.list.all(vehicleId.toUpperCase()));
  }

  async addRule(vehicleId: string, rule: RuleSettings, time: number): Promise<StoredRule> {
    this.open();
    try {
      const row = this.changeTx((rev) => this.s.add.get(vehicleId.toUpperCase(), settingsJson(rule), time, rev)!);
      return toRule(row)!;
    } catch (err) {
      if (isForeignKeyViolation(err)) throw new VtsError('VTS_ERR_UNKNOWN_VEHICLE', vehicleId);
      throw err;
    }
  }

  async updateRule(vehicleId: string, id: number, rule: RuleSettings): Promise<StoredRule | undefined> {
    this.open();
    const row = this.changeTx((rev) => this.s.update.get(settingsJson(rule), rev, vehicleId.toUpperCase(), id));
    return row && toRule(row);
  }

  async removeRule(vehicleId: string, id: number): Promise<boolean> {
    this.open();
    return this.changeTx(() => this.s.remove.run(vehicleId.toUpperCase(), id).changes > 0);
  }

  async ruledVehicles(): Promise<RuledVehicle[]> {
    this.open();
    return this.s.ruled.all().map(toRuled);
  }

  async rulesVersion(): Promise<number> {
    this.open();
    return Number(this.s.version.get() ?? 0);
  }

  async loadState(vehicleId: string): Promise<SavedAlertState | undefined> {
    this.open();
    const r = this.s.loadState.get(vehicleId.toUpperCase());
    return r && { version: Number(r.version), state: r.state };
  }

  async saveState(vehicleId: string, version: number, state: string, durable = true): Promise<number | null> {
    this.open();
    const id = vehicleId.toUpperCase();
    const save = (): number | null => {
      try {
        if (version === 0) return this.s.firstState.run(id, state).changes > 0 ? 1 : null;
        return this.s.nextState.run(state, id, version).changes > 0 ? version + 1 : null;
      } catch (err) {
        if (isForeignKeyViolation(err)) return null;
        throw err;
      }
    };
    return durable ? save() : relaxedCommit(this.db, save);
  }

  async getQuietHours(ownerId: number): Promise<QuietHours | null> {
    this.open();
    return toQuietHours(this.s.getQuiet.get(ownerId));
  }

  async setQuietHours(ownerId: number, quiet: QuietHours | null): Promise<void> {
    this.open();
    try {
      this.s.setQuiet.run(ownerId, quiet === null ? null : JSON.stringify({ from: quiet.from, to: quiet.to, timezone: quiet.timezone }));
    } catch (err) {
      if (isForeignKeyViolation(err)) throw new VtsError('VTS_ERR_UNKNOWN_USER', `owner id ${ownerId}`);
      throw err;
    }
  }
}
