/**
 * The v2 MP records rebuilt from v3 metrics, as the module's own v2 client builds them
 * (docs/protocol/mqtt-v3.md §11 field by field; the records themselves: docs/protocol/messages.md §3.1–§3.6, text fields
 * MP-encoded per §1). Each renderer returns the data part, without `MP-0 ` and the code letter.
 *
 * Conventions (§11): int() truncates toward zero; f1/f2/f3/f6 are fixed decimals; "dflt" is the
 * metric's plain text (payload.ts) with booleans as 1/0; (dist) fields are converted km → mi
 * (× 0.62137) when the distance unit is `M`; a missing metric gives the field's default (the one
 * §11 names, else zero in the field's format: `0`, `0.00`, …, or empty text). Staleness comes from
 * MetricSet.isStale at `opts.now` (an undefined metric is stale). Pure.
 */
import { encodeText } from '../mp/command.js';
import { KPA_TO_PSI } from '../records/tpms.js';
import { formatFixed, formatFloat, formatInt } from './format.js';
import type { MetricSet } from './metric-set.js';
import { metricPayload } from './payload.js';

/** km → mi (§11 conventions). */
export const KM_TO_MI = 0.62137;

/** The default TPMS wheel layout (§11.4). */
export const DEFAULT_TPMS_LAYOUT: readonly string[] = ['FL', 'FR', 'RL', 'RR'];

export interface V2RecordOptions {
  /** Config `vehicle units.distance`: `K` (default on the module) or `M` (miles). */
  distanceUnit: 'K' | 'M';
  /** Epoch seconds, for staleness. */
  now: number;
  /** Config `vehicle canwrite` (F field 4), default false. */
  canWrite?: boolean;
  /** Config `server.v2 workaround.ios_tpms_display` (W temperatures ≤ 1 sent as 1), default true. */
  iosTpmsWorkaround?: boolean;
  /** Wheel names of the `Y` record, default FL,FR,RL,RR. */
  tpmsLayout?: readonly string[];
}

export interface V2Record {
  code: string;
  data: string;
}

/** `v.c.substate` → S field 13 (§11.1; docs/protocol/messages.md §6.2), other texts 0. */
export const CHARGE_SUBSTATE: Readonly<Record<string, number>> = {
  scheduledstop: 1,
  scheduledstart: 2,
  onrequest: 3,
  timerwait: 5,
  powerwait: 7,
  stopped: 13,
  interrupted: 14,
};

/** `v.c.state` → S field 14 (§6.1), other texts 0. */
export const CHARGE_STATE: Readonly<Record<string, number>> = {
  charging: 1,
  topoff: 2,
  done: 4,
  prepare: 13,
  timerwait: 14,
  heating: 15,
  stopped: 21,
};

/** `v.c.mode` → S field 15 (§6.3), other texts -1. */
export const CHARGE_MODE: Readonly<Record<string, number>> = { standard: 0, storage: 1, range: 3, performance: 4 };

function key(table: Readonly<Record<string, number>>, text: string, other: number): number {
  return Object.hasOwn(table, text) ? (table[text] as number) : other;
}

/** Field helpers over one MetricSet and one set of options. */
class Fields {
  constructor(
    private readonly m: MetricSet,
    private readonly opts: V2RecordOptions,
  ) {}

  /** The metric as a number (bools 1/0), 0 when missing or not numeric. */
  num(name: string): number {
    return this.m.num(name) ?? 0;
  }

  /** A distance (or speed) in the configured unit. */
  dist(km: number): number {
    return this.opts.distanceUnit === 'M' ? km * KM_TO_MI : km;
  }

  /** int(metric). */
  int(name: string): string {
    return formatInt(this.num(name));
  }

  /** int(metric in dist × factor). */
  intDist(name: string, factor = 1): string {
    return formatInt(this.dist(this.num(name)) * factor);
  }

  /** Fixed decimals. */
  f(name: string, decimals: number): string {
    return formatFixed(this.num(name), decimals);
  }

  /** Fixed decimals in dist. */
  fDist(name: string, decimals: number): string {
    return formatFixed(this.dist(this.num(name)), decimals);
  }

  /** The metric's plain text, booleans 1/0; `missing` when undefined (`0`, or empty for text). */
  dflt(name: string, missing?: string): string {
    const v = this.m.get(name);
    if (v === undefined) return missing ?? (this.m.def(name)?.type === 'S' ? '' : '0');
    if (typeof v === 'boolean') return v ? '1' : '0';
    return metricPayload(this.m.def(name), v);
  }

  /** An int metric with a default for when it is missing. */
  intOr(name: string, missing: string): string {
    return this.m.has(name) ? this.int(name) : missing;
  }

  text(name: string, missing: string): string {
    return this.m.str(name) ?? missing;
  }

  bool(name: string): string {
    return this.m.bool(name) ? '1' : '0';
  }

  bit(name: string, mask: number): number {
    return this.m.bool(name) ? mask : 0;
  }

  stale(name: string): boolean {
    return this.m.isStale(name, this.opts.now);
  }
}

/** `S` — status (§11.1, docs/protocol/messages.md §3.1): 42 fields. */
export function renderS(m: MetricSet, opts: V2RecordOptions): string {
  const x = new Fields(m, opts);
  const state = x.text('v.c.state', 'stopped');
  const mode = x.text('v.c.mode', 'standard');
  const minsRange = Math.trunc(x.num('v.c.duration.range'));
  const minsSoc = Math.trunc(x.num('v.c.duration.soc'));
  return [
    m.has('v.b.soc') ? x.f('v.b.soc', 1) : '0', // 1
    opts.distanceUnit, // 2
    x.int('v.c.voltage'), // 3
    x.f('v.c.current', 2), // 4
    state, // 5
    mode, // 6
    x.intDist('v.b.range.ideal'), // 7
    x.intDist('v.b.range.est'), // 8
    x.int('v.c.climit'), // 9
    x.int('v.c.time'), // 10: seconds
    '0', // 11: charger B4
    formatInt(x.num('v.c.kwh') * 10), // 12
    String(key(CHARGE_SUBSTATE, x.text('v.c.substate', ''), 0)), // 13
    String(key(CHARGE_STATE, state, 0)), // 14
    String(key(CHARGE_MODE, mode, -1)), // 15
    x.bool('v.c.timermode'), // 16
    x.int('v.c.timerstart'), // 17
    '0', // 18: timer stale
    x.f('v.b.cac', 2), // 19
    x.int('v.c.duration.full'), // 20
    formatInt(minsRange >= 0 && minsRange < minsSoc ? minsRange : minsSoc), // 21
    x.intDist('v.c.limit.range'), // 22
    x.int('v.c.limit.soc'), // 23
    m.bool('v.e.cooling') ? '0' : '-1', // 24
    '0', // 25: cooldown temperature limit
    '0', // 26: cooldown time limit
    '0', // 27: charge estimate
    formatInt(minsRange), // 28
    formatInt(minsSoc), // 29
    x.intDist('v.b.range.full'), // 30
    '0', // 31: plug type
    m.bool('v.c.charging') ? formatFixed(-x.num('v.b.power'), 2) : '0.00', // 32
    x.f('v.b.voltage', 2), // 33
    x.f('v.b.soh', 2), // 34
    x.f('v.c.power', 2), // 35
    x.f('v.c.efficiency', 2), // 36
    x.f('v.b.current', 2), // 37
    x.fDist('v.b.range.speed', 1), // 38
    x.f('v.c.kwh.grid', 1), // 39
    x.f('v.c.kwh.grid.total', 1), // 40
    x.f('v.b.capacity', 1), // 41
    x.intOr('v.c.timestamp', '-1'), // 42
  ].join(',');
}

/** `D` — environment (§11.2, docs/protocol/messages.md §3.2, §6.4): 21 fields. */
export function renderD(m: MetricSet, opts: V2RecordOptions): string {
  const x = new Fields(m, opts);
  const doors1 =
    x.bit('v.d.fl', 0x01) |
    x.bit('v.d.fr', 0x02) |
    x.bit('v.d.cp', 0x04) |
    x.bit('v.c.pilot', 0x08) |
    x.bit('v.c.charging', 0x10) |
    x.bit('v.e.handbrake', 0x40) |
    x.bit('v.e.on', 0x80);
  const doors2 =
    x.bit('v.e.locked', 0x08) |
    x.bit('v.e.valet', 0x10) |
    x.bit('v.e.headlights', 0x20) |
    x.bit('v.d.hood', 0x40) |
    x.bit('v.d.trunk', 0x80);
  const doors3 = x.bit('v.e.awake', 0x01) | x.bit('v.e.cooling', 0x02) | x.bit('v.e.c.login', 0x40) | x.bit('v.e.c.config', 0x80);
  const doors4 = x.bit('v.e.alarm', 0x02);
  const doors5 =
    x.bit('v.d.rl', 0x01) |
    x.bit('v.d.rr', 0x02) |
    x.bit('v.e.charging12v', 0x10) |
    x.bit('v.e.aux12v', 0x20) |
    x.bit('v.e.hvac', 0x80); // 0x04 frunk: always 0
  const temps = ['v.i.temp', 'v.m.temp', 'v.b.temp', 'v.c.temp', 'v.e.temp', 'v.e.cabintemp'];
  return [
    String(doors1), // 1
    String(doors2), // 2
    m.bool('v.e.locked') ? '4' : '5', // 3
    x.dflt('v.i.temp', '0'), // 4
    x.dflt('v.m.temp'), // 5
    x.dflt('v.b.temp'), // 6
    x.intDist('v.p.trip', 10), // 7
    x.intDist('v.p.odometer', 10), // 8
    x.dflt('v.p.speed'), // 9: native km/h
    x.dflt('v.e.parktime'), // 10
    x.dflt('v.e.temp'), // 11
    String(doors3), // 12
    temps.every((t) => x.stale(t)) ? '0' : '1', // 13
    x.stale('v.e.temp') ? '0' : '1', // 14
    x.dflt('v.b.12v.voltage'), // 15
    String(doors4), // 16
    x.dflt('v.b.12v.voltage.ref'), // 17
    String(doors5), // 18
    x.dflt('v.c.temp'), // 19
    x.dflt('v.b.12v.current'), // 20
    x.dflt('v.e.cabintemp'), // 21
  ].join(',');
}

/** `L` — location (§11.3, docs/protocol/messages.md §3.3): 19 fields. */
export function renderL(m: MetricSet, opts: V2RecordOptions): string {
  const x = new Fields(m, opts);
  return [
    x.f('v.p.latitude', 6), // 1
    x.f('v.p.longitude', 6), // 2
    x.dflt('v.p.direction'), // 3
    x.dflt('v.p.altitude'), // 4
    x.bool('v.p.gpslock'), // 5
    x.stale('v.p.gpstime') ? '0' : '1', // 6
    x.fDist('v.p.speed', 1), // 7
    x.intDist('v.p.trip', 10), // 8
    (Math.trunc(x.num('v.e.drivemode')) >>> 0).toString(16), // 9: C's %x
    x.f('v.b.power', 3), // 10
    x.f('v.b.energy.used', 3), // 11: kWh
    x.f('v.b.energy.recd', 3), // 12: kWh
    x.dflt('v.i.power'), // 13
    x.dflt('v.i.efficiency'), // 14
    x.dflt('v.p.gpsmode'), // 15
    x.dflt('v.p.satcount'), // 16
    x.f('v.p.gpshdop', 1), // 17
    x.fDist('v.p.gpsspeed', 1), // 18
    x.dflt('v.p.gpssq'), // 19
  ].join(',');
}

/** One `Y` section: `<count>,<values…>,<validity>`, or `0,-1` for an undefined metric. */
function ySection(m: MetricSet, name: string, now: number, format: (v: number) => string): string[] {
  if (!m.has(name)) return ['0', '-1'];
  const values = m.vec(name) ?? [m.num(name) ?? NaN];
  return [String(values.length), ...values.map((v) => (Number.isNaN(v) ? '' : format(v))), m.isStale(name, now) ? '0' : '1'];
}

/** `Y` — TPMS (§11.4, docs/protocol/messages.md §3.5): layout, pressure, temperature, health, alert, mapping. */
export function renderY(m: MetricSet, opts: V2RecordOptions): string {
  const layout = opts.tpmsLayout ?? DEFAULT_TPMS_LAYOUT;
  const f1 = (v: number): string => formatFixed(v, 1);
  return [
    String(layout.length),
    ...layout,
    ...ySection(m, 'v.t.pressure', opts.now, f1),
    ...ySection(m, 'v.t.temp', opts.now, f1),
    ...ySection(m, 'v.t.health', opts.now, f1),
    ...ySection(m, 'v.t.alert', opts.now, formatInt),
    '0', // sensor-to-wheel mapping: not used
    '-1',
  ].join(',');
}

/** `W` — legacy TPMS (§11.4, docs/protocol/messages.md §3.4): FR, RR, FL, RL (psi, °C), stale. */
export function renderW(m: MetricSet, opts: V2RecordOptions): string {
  const pressure = m.vec('v.t.pressure') ?? [];
  const temp = m.vec('v.t.temp') ?? [];
  const at = (v: readonly number[], i: number): number => {
    const x = v[i];
    return x === undefined || Number.isNaN(x) ? 0 : x;
  };
  const workaround = opts.iosTpmsWorkaround ?? true;
  const wheel = (i: number): string[] => {
    const t = at(temp, i);
    return [formatFloat(at(pressure, i) * KPA_TO_PSI), formatFloat(workaround && t <= 1 ? 1 : t)];
  };
  const defined = ['v.t.pressure', 'v.t.temp'].filter((n) => m.has(n));
  const stale = defined.length === 0 ? '-1' : defined.some((n) => m.isStale(n, opts.now)) ? '0' : '1';
  return [...wheel(1), ...wheel(3), ...wheel(0), ...wheel(2), stale].join(',');
}

/** `m.net.sq` (dBm) in v2 "sq" units: (dBm + 113) / 2 (integer) for dBm ≤ −51, else 0. */
export function dbmToSq(dbm: number): number {
  return dbm <= -51 ? Math.trunc((dbm + 113) / 2) : 0;
}

/** `F` — firmware and identity (§11.5, docs/protocol/messages.md §3.6): 10 fields, text MP-encoded. */
export function renderF(m: MetricSet, opts: V2RecordOptions): string {
  const x = new Fields(m, opts);
  const text = (name: string): string => encodeText(x.dflt(name, ''));
  return [
    text('m.version'), // 1
    text('v.vin'), // 2
    formatInt(dbmToSq(x.num('m.net.sq'))), // 3
    opts.canWrite ? '1' : '0', // 4
    text('v.type'), // 5
    text('m.net.provider'), // 6
    x.intOr('v.e.serv.range', '-1'), // 7: km
    x.intOr('v.e.serv.time', '-1'), // 8: seconds
    text('m.hardware'), // 9
    text('m.net.mdm.mode'), // 10
  ].join(',');
}

/** All six records in the order the module sends them: F, S, D, L, Y, then W. */
export function renderRecords(m: MetricSet, opts: V2RecordOptions): V2Record[] {
  return [
    { code: 'F', data: renderF(m, opts) },
    { code: 'S', data: renderS(m, opts) },
    { code: 'D', data: renderD(m, opts) },
    { code: 'L', data: renderL(m, opts) },
    { code: 'Y', data: renderY(m, opts) },
    { code: 'W', data: renderW(m, opts) },
  ];
}
