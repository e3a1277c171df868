/**
 * Alert rules an owner sets per vehicle (issue 30): their kinds and settings, and the check of a
 * rule body as the HTTP API receives it (`{kind, ...settings}`), naming the first bad field.
 * Pure: the owner's place ids are passed in.
 */
import { BadField, isRecord } from '../body-check.js';

export const RULE_KINDS = [
  'soc-reached',
  'soc-below',
  'charge-started',
  'charge-done',
  'charge-stopped',
  'offline',
  'place-arrive',
  'place-leave',
  'v12-low',
  'drive-report',
] as const;

export type RuleKind = (typeof RULE_KINDS)[number];

/** A rule's kind and settings, as checked (defaults filled in). Times in seconds, SOC in %, 12 V in volts. */
export type RuleSettings =
  | { kind: 'soc-reached'; threshold: number }
  | { kind: 'soc-below'; threshold: number }
  | { kind: 'charge-started' }
  | { kind: 'charge-done' }
  | { kind: 'charge-stopped'; after: number }
  | { kind: 'offline'; after: number }
  | { kind: 'place-arrive'; place: number }
  | { kind: 'place-leave'; place: number }
  | { kind: 'v12-low'; threshold: number; after: number }
  | { kind: 'drive-report' };

/** A stored rule: its id (the store's, unique per vehicle) and its settings. */
export type AlertRule = RuleSettings & { id: number };

export const RULE_DEFAULTS = {
  /** charge-stopped: seconds the charge may stay stopped before it counts. */
  chargeStoppedAfter: 120,
  /** offline: seconds without a module link. */
  offlineAfter: 3600,
  /** v12-low: seconds the 12 V must stay below the threshold. */
  v12After: 600,
} as const;

export const RULE_LIMITS = {
  /** The longest `after`: 30 days. */
  afterMax: 30 * 86400,
  /** v12-low threshold, volts (exclusive low, inclusive high). */
  voltsMax: 30,
} as const;

export type RuleCheck = { ok: true; rule: RuleSettings } | { ok: false; field: string; message: string };

function isKind(v: unknown): v is RuleKind {
  return typeof v === 'string' && (RULE_KINDS as readonly string[]).includes(v);
}

function percent(body: Record<string, unknown>): number {
  const v = body.threshold;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 100) throw new BadField('threshold', 'threshold must be a SOC in % from 0 to 100');
  return v;
}

function volts(body: Record<string, unknown>): number {
  const v = body.threshold;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0 || v > RULE_LIMITS.voltsMax)
    throw new BadField('threshold', `threshold must be a voltage above 0 and at most ${RULE_LIMITS.voltsMax} V`);
  return v;
}

function after(body: Record<string, unknown>, fallback: number): number {
  const v = body.after;
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1 || v > RULE_LIMITS.afterMax)
    throw new BadField('after', `after must be a whole number of seconds from 1 to ${RULE_LIMITS.afterMax}`);
  return v;
}

function place(body: Record<string, unknown>, placeIds: readonly number[]): number {
  const v = body.place;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || !placeIds.includes(v)) throw new BadField('place', 'place must be the id of one of your places');
  return v;
}

function check(body: unknown, placeIds: readonly number[]): RuleSettings {
  if (!isRecord(body)) throw new BadField('body', 'the body must be a JSON object');
  const kind = body.kind;
  if (!isKind(kind)) throw new BadField('kind', `kind must be one of ${RULE_KINDS.join(', ')}`);
  switch (kind) {
    case 'soc-reached':
    case 'soc-below':
      return { kind, threshold: percent(body) };
    case 'charge-stopped':
      return { kind, after: after(body, RULE_DEFAULTS.chargeStoppedAfter) };
    case 'offline':
      return { kind, after: after(body, RULE_DEFAULTS.offlineAfter) };
    case 'place-arrive':
    case 'place-leave':
      return { kind, place: place(body, placeIds) };
    case 'v12-low':
      return { kind, threshold: volts(body), after: after(body, RULE_DEFAULTS.v12After) };
    case 'charge-started':
    case 'charge-done':
    case 'drive-report':
      return { kind };
  }
}

/**
 * A rule's settings from a request body `{kind, ...settings}`: the kind's settings with their
 * defaults, or the first bad field (`kind`, `threshold`, `after`, `place`) and what it must be.
 * `placeIds` are the ids of the owner's own places (another owner's place is "unknown").
 * Keys the kind does not use (an `id`, a `threshold` on charge-started) are ignored.
 */
export function checkRule(body: unknown, placeIds: readonly number[]): RuleCheck {
  try {
    return { ok: true, rule: check(body, placeIds) };
  } catch (e) {
    if (e instanceof BadField) return { ok: false, field: e.field, message: e.message };
    throw e;
  }
}

/** The settings without the id, keys in a fixed order: equal texts mean equal settings. */
export function ruleSignature(rule: RuleSettings): string {
  switch (rule.kind) {
    case 'soc-reached':
    case 'soc-below':
      return `${rule.kind}|${rule.threshold}`;
    case 'charge-stopped':
    case 'offline':
      return `${rule.kind}|${rule.after}`;
    case 'place-arrive':
    case 'place-leave':
      return `${rule.kind}|${rule.place}`;
    case 'v12-low':
      return `${rule.kind}|${rule.threshold}|${rule.after}`;
    default:
      return rule.kind;
  }
}
