/**
 * Words for the alert rules (issue 30, docs/alerts.md): each kind's name and settings, a rule as a
 * sentence a person reads, times as "1 h 30 min", the units the page enters `after` in, and the
 * field a server error names. Pure (no DOM): the unit test imports it.
 */
import { RULE_KINDS } from '../../src/core/alerts/rules.js';
import type { AlertRuleInput, AlertRuleRow, RuleKind } from './types.js';

/** The kinds in the order the form offers them: the server's order. */
export const KINDS: readonly RuleKind[] = RULE_KINDS;

/** A setting of a rule: which kinds have it is KIND_INFO's `settings`. */
export type Setting = 'threshold' | 'after' | 'place';

export interface KindInfo {
  /** the kind's name in the form's select */
  label: string;
  settings: readonly Setting[];
  /** threshold: its unit and the value a new rule starts with */
  threshold?: { unit: '%' | 'V'; initial: number; step: string; min: number; max: number };
  /** after: the server's default, seconds */
  after?: number;
}

export const KIND_INFO: Readonly<Record<RuleKind, KindInfo>> = {
  'soc-reached': { label: 'SOC reached while charging', settings: ['threshold'], threshold: { unit: '%', initial: 80, step: '1', min: 0, max: 100 } },
  'soc-below': { label: 'SOC below, not charging', settings: ['threshold'], threshold: { unit: '%', initial: 20, step: '1', min: 0, max: 100 } },
  'charge-started': { label: 'Charge started', settings: [] },
  'charge-done': { label: 'Charge done', settings: [] },
  'charge-stopped': { label: 'Charge stopped before done', settings: ['after'], after: 120 },
  offline: { label: 'Module offline', settings: ['after'], after: 3600 },
  'place-arrive': { label: 'Arriving at a place', settings: ['place'] },
  'place-leave': { label: 'Leaving a place', settings: ['place'] },
  'v12-low': { label: '12 V battery low', settings: ['threshold', 'after'], threshold: { unit: 'V', initial: 12, step: '0.1', min: 0, max: 30 }, after: 600 },
  'drive-report': { label: 'Drive report', settings: [] },
};

/** The longest `after` the server takes: 30 days. */
export const AFTER_MAX = 30 * 86400;

export function isKind(v: string): v is RuleKind {
  return (KINDS as readonly string[]).includes(v);
}

/** The units `after` is entered in, seconds each. */
export const AFTER_UNITS = [
  { unit: 's', label: 'seconds', seconds: 1 },
  { unit: 'min', label: 'minutes', seconds: 60 },
  { unit: 'h', label: 'hours', seconds: 3600 },
  { unit: 'd', label: 'days', seconds: 86400 },
] as const;

export type AfterUnit = (typeof AFTER_UNITS)[number]['unit'];

/** A number as the page writes it: `11.8`, `80` (no grouping, at most 2 decimals). */
function num(n: number): string {
  return String(Math.round(n * 100) / 100);
}

/** Seconds as the rules read them: `45 s`, `2 min`, `1 h`, `1 h 30 min`, `2 d`, `1 d 6 h`. */
export function afterText(seconds: number): string {
  let s = Math.max(0, Math.round(seconds));
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86400],
    ['h', 3600],
    ['min', 60],
    ['s', 1],
  ] as const) {
    const n = Math.floor(s / size);
    s -= n * size;
    if (n > 0) parts.push(`${n}\u00a0${unit}`);
  }
  return parts.length ? parts.join(' ') : '0\u00a0s';
}

/** The largest unit that holds `seconds` whole, and the count of it: 5400 → 90 min, 7200 → 2 h. */
export function afterInput(seconds: number): { value: number; unit: AfterUnit } {
  for (const u of [...AFTER_UNITS].reverse()) {
    if (seconds >= u.seconds && seconds % u.seconds === 0) return { value: seconds / u.seconds, unit: u.unit };
  }
  return { value: seconds, unit: 's' };
}

/** Seconds of a value in a unit (whole seconds), or null when it is no time from 1 s to 30 days. */
export function afterSeconds(value: string, unit: AfterUnit): number | null {
  const size = AFTER_UNITS.find((u) => u.unit === unit)?.seconds ?? 1;
  if (value.trim() === '') return null;
  const n = Number(value);
  if (!Number.isFinite(n)) return null;
  const s = Math.round(n * size);
  return s >= 1 && s <= AFTER_MAX ? s : null;
}

/**
 * A rule as a sentence: "When the SOC reaches 80 % while charging". `placeName` names the owner's
 * place of a place rule (null: not among the places, e.g. deleted since).
 */
export function ruleSentence(rule: AlertRuleInput | AlertRuleRow, placeName: (id: number) => string | null): string {
  const place = (id: number) => placeName(id) ?? `place #${id} (no longer among your places)`;
  switch (rule.kind) {
    case 'soc-reached':
      return `When the SOC reaches ${num(rule.threshold)}\u00a0% while charging`;
    case 'soc-below':
      return `When the SOC falls below ${num(rule.threshold)}\u00a0% while not charging`;
    case 'charge-started':
      return 'When a charge starts';
    case 'charge-done':
      return 'When a charge is done';
    case 'charge-stopped':
      return `When a charge stops before it is done and has not resumed within ${afterText(rule.after)}`;
    case 'offline':
      return `When the module has been offline for ${afterText(rule.after)} (and again when it is back online)`;
    case 'place-arrive':
      return `When arriving at ${place(rule.place)}`;
    case 'place-leave':
      return `When leaving ${place(rule.place)}`;
    case 'v12-low':
      return `When the 12\u00a0V battery has stayed below ${num(rule.threshold)}\u00a0V for ${afterText(rule.after)}`;
    case 'drive-report':
      return 'After each drive: its distance, duration, energy and efficiency';
  }
}

/** A notification's event (a rule's kind, or `online`) in a few words; the text as is when unknown. */
export function eventLabel(event: string): string {
  if (event === 'online') return 'back online';
  return isKind(event) ? KIND_INFO[event].label : event;
}

/**
 * The field a server error names: its message starts with the field's name
 * (`threshold must be a SOC in % from 0 to 100` → threshold); null when it names none of `fields`.
 */
export function fieldAt<F extends string>(message: string, fields: readonly F[]): F | null {
  const m = /^\s*([A-Za-z]+)\b/.exec(message);
  return m ? (fields.find((f) => f === m[1]) ?? null) : null;
}
