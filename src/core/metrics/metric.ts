/**
 * OVMS v3 metrics (docs/protocol/mqtt-v3.md §10): a named value with a type and a native unit. The module
 * emulator keeps its state as metrics, the MQTT link publishes them, and the v2 records (S, D, L,
 * W, Y, F) are rendered from them (docs/protocol/mqtt-v3.md §11).
 */

/** B bool, I int, I64 64-bit int, F float, S string, V vector (of floats), VS vector of short ints. */
export type MetricType = 'B' | 'I' | 'I64' | 'F' | 'S' | 'V' | 'VS';

export type MetricValue = number | boolean | string | readonly number[];

/** Staleness classes: seconds without an update before a metric counts as stale (§10). */
export const STALE = { MIN: 10, MID: 120, HIGH: 3600, MAX: 65535 } as const;

export interface MetricDef {
  name: string;
  type: MetricType;
  /**
   * Native unit code as the console labels it: '' (none), '%', 'km', 'km/h', 'V', 'A', 'Ah', 'kW',
   * 'kWh', '°C', 'kPa', 'Sec', 'Min', 'dBm', 'm', '°', 'bytes', 'Wh/km', 'm/s²', 'date', 'W', ...
   */
  unit: string;
  /** Seconds without an update before the value counts as stale. */
  stale: number;
  /** Kept across a warm reboot. */
  persistent?: boolean;
  /** Fixed decimals of its plain text form, when the firmware fixes them (latitude: 6). */
  decimals?: number;
}
