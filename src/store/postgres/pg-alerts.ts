/**
 * Alert rules, the engines' state and the owners' quiet hours on PostgreSQL (AlertsStore,
 * src/store/alerts-store.ts), as the PgStore's direct writes and reads. Shared by the nodes of a
 * cluster: a state is saved only over the version it was computed from.
 */
import type { QuietHours } from '../../core/alerts/delivery.js';
import type { RuleSettings } from '../../core/alerts/rules.js';
import { VtsError } from '../../errors.js';
import type { AlertsStore, RuledVehicle, SavedAlertState, StoredRule } from '../alerts-store.js';
import { RULE_COLUMNS, RULED_SQL, settingsJson, toQuietHours, toRule, toRuled, toRules, type AlertRuleRow, type RuledRow } from '../alerts-rows.js';
import { type PgAccess } from './pg-connection.js';
import { isForeignKeyViolation } from './pg-errors.js';

const BUMP = "UPDATE vts_meta SET value = (value::bigint + 1)::text WHERE key = 'alert_rules_version' RETURNING value";

export class PgAlertsStore implements AlertsStore {
  constructor(private readonly db: PgAccess) {}

  async listRules(vehicleId: string): Promise<StoredRule[]> {
    return toRules(await this.db.read<AlertRuleRow>(`SELECT ${RULE_COLUMNS} FROM alert_rules WHERE vehicle_id = $1 ORDER BY id`, [vehicleId.toUpperCase()]));
  }

  /** The change counter moved on, and one statement on the rules with its new value as `$1`, in one transaction. */
  private changeRules(sql: string, values: unknown[]): Promise<AlertRuleRow[]> {
    return this.db.transaction(async (client) => {
      const bumped = await client.query<{ value: string }>(BUMP);
      const { rows } = await client.query<AlertRuleRow>(sql, [Number(bumped.rows[0]!.value), ...values]);
      return rows;
    });
  }

  async addRule(vehicleId: string, rule: RuleSettings, time: number): Promise<StoredRule> {
    try {
      const rows = await this.changeRules(`INSERT INTO alert_rules (rev, vehicle_id, settings, created) VALUES ($1, $2, $3, $4) RETURNING ${RULE_COLUMNS}`, [
        vehicleId.toUpperCase(),
        settingsJson(rule),
        time,
      ]);
      return toRule(rows[0]!)!;
    } catch (err) {
      if (isForeignKeyViolation(err)) throw new VtsError('VTS_ERR_UNKNOWN_VEHICLE', vehicleId);
      throw err;
    }
  }

  async updateRule(vehicleId: string, id: number, rule: RuleSettings): Promise<StoredRule | undefined> {
    const rows = await this.changeRules(`UPDATE alert_rules SET rev = $1, settings = $2 WHERE vehicle_id = $3 AND id = $4 RETURNING ${RULE_COLUMNS}`, [
      settingsJson(rule),
      vehicleId.toUpperCase(),
      id,
    ]);
    return rows[0] && toRule(rows[0]);
  }

  async removeRule(vehicleId: string, id: number): Promise<boolean> {
    // $1 (the counter) is not needed by a removal: a lower count tells it
    const rows = await this.changeRules('DELETE FROM alert_rules WHERE $1::bigint IS NOT NULL AND vehicle_id = $2 AND id = $3 RETURNING id, settings, created', [vehicleId.toUpperCase(), id]);
    return rows.length > 0;
  }

  async ruledVehicles(): Promise<RuledVehicle[]> {
    return (await this.db.read<RuledRow>(RULED_SQL, [])).map(toRuled);
  }

  async rulesVersion(): Promise<number> {
    const [r] = await this.db.read<{ value: string }>("SELECT value FROM vts_meta WHERE key = 'alert_rules_version'", []);
    return Number(r?.value ?? 0);
  }

  async loadState(vehicleId: string): Promise<SavedAlertState | undefined> {
    const [r] = await this.db.read<{ version: string | number; state: string }>('SELECT version, state FROM alert_state WHERE vehicle_id = $1', [vehicleId.toUpperCase()]);
    return r && { version: Number(r.version), state: r.state };
  }

  /** `durable` is for SQLite: a PostgreSQL commit never blocks the event loop. */
  async saveState(vehicleId: string, version: number, state: string, _durable = true): Promise<number | null> {
    const id = vehicleId.toUpperCase();
    try {
      const { rowCount } =
        version === 0
          ? await this.db.change('INSERT INTO alert_state (vehicle_id, version, state) VALUES ($1, 1, $2) ON CONFLICT (vehicle_id) DO NOTHING', [id, state])
          : await this.db.change('UPDATE alert_state SET version = version + 1, state = $1 WHERE vehicle_id = $2 AND version = $3', [state, id, version]);
      return (rowCount ?? 0) > 0 ? version + 1 : null;
    } catch (err) {
      if (isForeignKeyViolation(err)) return null;
      throw err;
    }
  }

  async getQuietHours(ownerId: number): Promise<QuietHours | null> {
    const [r] = await this.db.read<{ quiet: string | null }>('SELECT quiet FROM alert_settings WHERE owner_id = $1', [ownerId]);
    return toQuietHours(r?.quiet);
  }

  async setQuietHours(ownerId: number, quiet: QuietHours | null): Promise<void> {
    try {
      await this.db.change(
        'INSERT INTO alert_settings (owner_id, quiet) VALUES ($1, $2) ON CONFLICT (owner_id) DO UPDATE SET quiet = excluded.quiet',
        [ownerId, quiet === null ? null : JSON.stringify({ from: quiet.from, to: quiet.to, timezone: quiet.timezone })],
      );
    } catch (err) {
      if (isForeignKeyViolation(err)) throw new VtsError('VTS_ERR_UNKNOWN_USER', `owner id ${ownerId}`);
      throw err;
    }
  }
}
