/** The alert_rules rows of both databases as StoredRule values (src/store/alerts-store.ts). */
import { checkQuietHours, type QuietHours } from '../core/alerts/delivery.js';
import { checkRule, type RuleSettings } from '../core/alerts/rules.js';
import type { RuledVehicle, StoredRule } from './alerts-store.js';

export interface AlertRuleRow {
  id: number;
  settings: string;
  created: number;
}

export const RULE_COLUMNS = 'id, settings, created';

/** Every vehicle with rules, with what tells a change of its rules (both databases). */
export const RULED_SQL = `SELECT r.vehicle_id, v.owner_id, count(*) AS n, max(r.rev) AS rev
  FROM alert_rules r JOIN vehicles v ON v.id = r.vehicle_id
  GROUP BY r.vehicle_id, v.owner_id ORDER BY r.vehicle_id`;

export interface RuledRow {
  vehicle_id: string;
  owner_id: number | string;
  n: number | string;
  rev: number | string;
}

/** Any change to a vehicle's rules changes (count, max(rev)): an add or a change raises max(rev), a removal alone lowers the count. */
export function toRuled(r: RuledRow): RuledVehicle {
  return { vehicleId: r.vehicle_id, ownerId: Number(r.owner_id), rulesTag: `${Number(r.n)}:${Number(r.rev)}` };
}

/** The settings as stored: the checked settings as JSON (the kind first). */
export function settingsJson(rule: RuleSettings): string {
  return JSON.stringify(rule);
}

/**
 * A row as a rule. The JSON was checked when written; it is checked again (a row written by hand
 * or by a newer version that this one cannot read is left out: undefined).
 */
export function toRule(r: AlertRuleRow): StoredRule | undefined {
  let body: unknown;
  try {
    body = JSON.parse(r.settings);
  } catch {
    return undefined;
  }
  const place = typeof body === 'object' && body !== null && 'place' in body ? (body as { place: unknown }).place : undefined;
  const check = checkRule(body, typeof place === 'number' ? [place] : []);
  if (!check.ok) return undefined;
  return { id: Number(r.id), ...check.rule, created: Number(r.created) };
}

export function toRules(rows: readonly AlertRuleRow[]): StoredRule[] {
  const out: StoredRule[] = [];
  for (const r of rows) {
    const rule = toRule(r);
    if (rule) out.push(rule);
  }
  return out;
}

/** Quiet hours from their stored JSON (null when none or unreadable). */
export function toQuietHours(text: string | null | undefined): QuietHours | null {
  if (text === null || text === undefined || text === '') return null;
  try {
    const check = checkQuietHours(JSON.parse(text));
    return check.ok ? check.quiet : null;
  } catch {
    return null;
  }
}
