/**
 * The v3 metrics a v2 record carries: the inverse of v2-records.ts (docs/protocol/mqtt-v3.md §11, the records
 * docs/protocol/messages.md §3.1–§3.6), so that a v2 car's state can be published as OVMS v3 metric topics
 * (`ovms/<owner>/<vehicle>/metric/v/b/soc`). Each pair is [dotted metric name, payload text exactly as a
 * v3 module publishes it] (payload.ts: booleans `yes`/`no`, floats `%g`, latitude/longitude f6).
 *
 * Rules:
 * - Values are in the metrics' native units: distances and speeds the record gives in miles (S field
 *   2 `M`) are converted back (÷ KM_TO_MI, rounded to the decimals the field has: 32.5 mi/h → 52.3
 *   km/h); the ×10 fields (S 12, D 7/8, L 8) are divided by 10; W pressures psi → kPa; F's "sq" →
 *   dBm (sq × 2 − 113, the lower end of the 2 dB step).
 * - A field the record does not have (old firmware sends fewer fields), an empty field or one that is
 *   not a plain number gives no metric; so does a value that means "unknown" (S 42, F 7/8 `-1`; F 3
 *   `0` or `99`; W/Y validity `-1`; L latitude and longitude both `0`). Never NaN, never throws.
 * - Fields that render() writes as constants or derives from other metrics give nothing: S 2 (the
 *   unit, config), 11, 18, 21 (the smaller of 28 and 29), 25–27, 31, 32 (−v.b.power while charging:
 *   L 10 carries v.b.power); D 13/14 and L 6 (staleness, which MQTT does not carry); F 4 (config);
 *   the Y sensor mapping; the D frunk bit (always 0).
 * - Sources when two fields carry one metric: S field 5 is `v.c.state` (field 14's key only when 5
 *   is empty), likewise 6/15 for `v.c.mode`; D doors2 bit 0x08 is `v.e.locked` (field 3, 4 locked /
 *   5 unlocked, only when field 2 is not a number).
 * - Across records (the context says what the vehicle sends): D's bits are authoritative for
 *   `v.c.charging` and `v.e.cooling`; S derives them (state charging/topoff; field 24 ≥ 0) only for a
 *   vehicle that sends no D. Y is authoritative for the tyres; W gives them only when there is no Y.
 *   Semantics follow FW3 (the module's v2 client); FW2 differs in S 10 (minutes, not seconds) and
 *   D 9 (speed in the user unit, not km/h), which are read as FW3 sends them.
 * Pure.
 */
import { decodeText } from '../commands/result.js';
import { KPA_TO_PSI } from '../records/tpms.js';
import {
  allNumbers,
  CHARGING_STATES,
  Collector,
  decimalOf,
  hexOf,
  MODE_OF_KEY,
  STATE_OF_KEY,
  SUBSTATE_OF_KEY,
  unsignedOf,
  type Bit,
} from './v3-fields.js';

export interface V3MetricsContext {
  /** S field 2 of the vehicle's latest S: distances/speeds in records are in this unit. */
  distanceUnit: 'K' | 'M';
  /**
   * The vehicle sends D records (one is stored): D's doors1 bit 0x10 and doors3 bit 0x02 are then the
   * only sources of `v.c.charging` and `v.e.cooling`, and S does not derive them. Default false.
   */
  hasD?: boolean;
  /** The vehicle sends Y records: W (the legacy four-wheel copy) then gives no metric. Default false. */
  hasY?: boolean;
}

/** The distance unit a S record's data declares ('K' unless field 2 is 'M'). */
export function distanceUnitOf(sData: string): 'K' | 'M' {
  return sData.split(',')[1] === 'M' ? 'M' : 'K';
}

/** `S` (§11.1): its own field 2 gives the distance unit. */
function statusMetrics(data: string, ctx: V3MetricsContext): Array<[string, string]> {
  const c = new Collector(data, distanceUnitOf(data));
  c.number(1, 'v.b.soc');
  c.number(3, 'v.c.voltage');
  c.number(4, 'v.c.current');
  const state = c.text(5) ?? keyText(STATE_OF_KEY, c.num(14));
  c.put('v.c.state', state);
  c.put('v.c.mode', c.text(6) ?? keyText(MODE_OF_KEY, c.num(15)));
  c.distance(7, 'v.b.range.ideal');
  c.distance(8, 'v.b.range.est');
  c.number(9, 'v.c.climit');
  c.number(10, 'v.c.time'); // seconds (FW3)
  c.number(12, 'v.c.kwh', 10);
  c.put('v.c.substate', keyText(SUBSTATE_OF_KEY, c.num(13)));
  c.flag(16, 'v.c.timermode');
  c.number(17, 'v.c.timerstart');
  c.number(19, 'v.b.cac');
  c.number(20, 'v.c.duration.full');
  c.distance(22, 'v.c.limit.range');
  c.number(23, 'v.c.limit.soc');
  if (!ctx.hasD) {
    // D is authoritative for both; without D, S's charge state and cooldown field stand in.
    if (state !== undefined) c.put('v.c.charging', CHARGING_STATES.has(state));
    const cooldown = c.num(24); // FW3: 0 cooling, -1 not; FW2: -1 inactive, ≥ 0 cycles
    if (cooldown !== undefined) c.put('v.e.cooling', cooldown >= 0);
  }
  c.number(28, 'v.c.duration.range');
  c.number(29, 'v.c.duration.soc');
  c.distance(30, 'v.b.range.full');
  c.number(33, 'v.b.voltage');
  c.number(34, 'v.b.soh');
  c.number(35, 'v.c.power');
  c.number(36, 'v.c.efficiency');
  c.number(37, 'v.b.current');
  c.distance(38, 'v.b.range.speed');
  c.number(39, 'v.c.kwh.grid');
  c.number(40, 'v.c.kwh.grid.total');
  c.number(41, 'v.b.capacity');
  const ended = c.num(42);
  if (ended !== undefined && ended >= 0) c.put('v.c.timestamp', ended); // -1: never
  return c.out;
}

/** The text of a number key (S 13/14/15); "other" keys have none. */
function keyText(table: ReadonlyMap<number, string>, key: number | undefined): string | undefined {
  return key === undefined ? undefined : table.get(key);
}

const DOORS1: readonly Bit[] = [
  ['v.d.fl', 0x01],
  ['v.d.fr', 0x02],
  ['v.d.cp', 0x04],
  ['v.c.pilot', 0x08],
  ['v.c.charging', 0x10],
  ['v.e.handbrake', 0x40],
  ['v.e.on', 0x80],
];
const DOORS2: readonly Bit[] = [
  ['v.e.locked', 0x08],
  ['v.e.valet', 0x10],
  ['v.e.headlights', 0x20],
  ['v.d.hood', 0x40],
  ['v.d.trunk', 0x80],
];
const DOORS3: readonly Bit[] = [
  ['v.e.awake', 0x01],
  ['v.e.cooling', 0x02],
  ['v.e.c.login', 0x40],
  ['v.e.c.config', 0x80],
];
const DOORS4: readonly Bit[] = [['v.e.alarm', 0x02]];
const DOORS5: readonly Bit[] = [
  ['v.d.rl', 0x01],
  ['v.d.rr', 0x02],
  ['v.e.charging12v', 0x10],
  ['v.e.aux12v', 0x20],
  ['v.e.hvac', 0x80],
];

/** `D` (§11.2). */
function environmentMetrics(data: string, ctx: V3MetricsContext): Array<[string, string]> {
  const c = new Collector(data, ctx.distanceUnit);
  c.bits(1, DOORS1);
  c.bits(2, DOORS2);
  const lock = c.num(3); // only when doors2 did not give v.e.locked
  if (lock === 4 || lock === 5) c.put('v.e.locked', lock === 4);
  c.number(4, 'v.i.temp');
  c.number(5, 'v.m.temp');
  c.number(6, 'v.b.temp');
  c.distance(7, 'v.p.trip', 10);
  c.distance(8, 'v.p.odometer', 10);
  c.number(9, 'v.p.speed'); // FW3: native km/h, not converted
  c.number(10, 'v.e.parktime');
  c.number(11, 'v.e.temp');
  c.bits(12, DOORS3);
  c.number(15, 'v.b.12v.voltage');
  c.bits(16, DOORS4);
  c.number(17, 'v.b.12v.voltage.ref');
  c.bits(18, DOORS5);
  c.number(19, 'v.c.temp');
  c.number(20, 'v.b.12v.current');
  c.number(21, 'v.e.cabintemp');
  return c.out;
}

/** `L` (§11.3). */
function locationMetrics(data: string, ctx: V3MetricsContext): Array<[string, string]> {
  const c = new Collector(data, ctx.distanceUnit);
  const lat = c.num(1);
  const lon = c.num(2);
  if ((lat ?? 0) !== 0 || (lon ?? 0) !== 0) {
    // 0,0 is what the module sends without a position
    c.put('v.p.latitude', lat);
    c.put('v.p.longitude', lon);
  }
  c.number(3, 'v.p.direction');
  c.number(4, 'v.p.altitude');
  c.flag(5, 'v.p.gpslock');
  c.distance(7, 'v.p.speed');
  c.distance(8, 'v.p.trip', 10);
  c.put('v.e.drivemode', hexOf(c.raw(9)));
  c.number(10, 'v.b.power');
  c.number(11, 'v.b.energy.used'); // kWh (FW3)
  c.number(12, 'v.b.energy.recd');
  c.number(13, 'v.i.power');
  c.number(14, 'v.i.efficiency');
  c.string(15, 'v.p.gpsmode');
  c.number(16, 'v.p.satcount');
  c.number(17, 'v.p.gpshdop');
  c.distance(18, 'v.p.gpsspeed');
  c.number(19, 'v.p.gpssq');
  return c.out;
}

/** `W` (§11.4): FR, RR, FL, RL pressure (psi) and temperature, then validity; vectors FL, FR, RL, RR. */
function legacyTpmsMetrics(data: string, ctx: V3MetricsContext): Array<[string, string]> {
  const c = new Collector(data, ctx.distanceUnit);
  if (ctx.hasY || c.raw(9) === '-1') return c.out; // Y is authoritative; -1: none defined
  const order = [5, 1, 7, 3]; // FL, FR, RL, RR: the field of each wheel's pressure
  const pressures = order.map((n) => c.num(n));
  const temps = order.map((n) => c.num(n + 1));
  if (allNumbers(pressures)) c.put('v.t.pressure', pressures.map((p) => p / KPA_TO_PSI));
  if (allNumbers(temps)) c.put('v.t.temp', temps);
  return c.out;
}

/** No car has more wheels (as tpms.ts). */
const MAX_WHEELS = 64;

/** `Y` (§11.4): layout, then pressure, temperature, health and alert sections `<n>,<values…>,<validity>`. */
function tpmsMetrics(data: string): Array<[string, string]> {
  const c = new Collector(data, 'K');
  const f = data.split(',');
  const names = unsignedOf(f[0]);
  if (names === undefined || names > MAX_WHEELS) return c.out;
  let at = 1 + names;
  for (const name of ['v.t.pressure', 'v.t.temp', 'v.t.health', 'v.t.alert']) {
    const n = unsignedOf(f[at]);
    if (n === undefined || n > MAX_WHEELS) break; // the positions after it are unknown
    const values = f.slice(at + 1, at + 1 + n).map(decimalOf);
    const validity = f[at + 1 + n];
    at += n + 2;
    if (n === 0 || validity === '-1' || values.length < n) continue;
    if (allNumbers(values)) c.put(name, values); // an empty (NaN) value: none
  }
  return c.out;
}

/** `F` (§11.5): text fields are MP-encoded (CR → LF is undone; a `;` may have been a `,` and stays). */
function firmwareMetrics(data: string, ctx: V3MetricsContext): Array<[string, string]> {
  const c = new Collector(data, ctx.distanceUnit);
  c.string(1, 'm.version', decodeText);
  c.string(2, 'v.vin', decodeText);
  const sq = c.num(3); // (dBm + 113) / 2; 0: none (FW3), 99: unknown (FW2's CSQ)
  if (sq !== undefined && sq >= 1 && sq <= 31) c.put('m.net.sq', sq * 2 - 113);
  c.string(5, 'v.type', decodeText);
  c.string(6, 'm.net.provider', decodeText);
  const range = c.num(7);
  if (range !== undefined && range >= 0) c.put('v.e.serv.range', range); // -1: none
  const time = c.num(8);
  if (time !== undefined && time >= 0) c.put('v.e.serv.time', time);
  c.string(9, 'm.hardware', decodeText);
  c.string(10, 'm.net.mdm.mode', decodeText);
  return c.out;
}

/**
 * The v3 metrics one v2 record carries: [dotted metric name, payload text as a v3 module publishes
 * it]. Fields the record does not have (short records of old firmware) give no metric. Unknown codes
 * give [].
 */
export function metricsOfRecord(code: string, data: string, ctx: V3MetricsContext): Array<[string, string]> {
  switch (code) {
    case 'S':
      return statusMetrics(data, ctx);
    case 'D':
      return environmentMetrics(data, ctx);
    case 'L':
      return locationMetrics(data, ctx);
    case 'W':
      return legacyTpmsMetrics(data, ctx);
    case 'Y':
      return tpmsMetrics(data);
    case 'F':
      return firmwareMetrics(data, ctx);
    default:
      return [];
  }
}
