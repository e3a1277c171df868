/**
 * A set of metric values with the time each was last set (for staleness, which MQTT does not
 * carry). Pure: the caller passes the time. Listeners hear every change (a set to an equal value
 * only refreshes the time and is not a change).
 */
import type { MetricDef, MetricValue } from './metric.js';

export type MetricListener = (name: string, value: MetricValue | undefined) => void;

function equal(a: MetricValue | undefined, b: MetricValue | undefined): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
  return Object.is(a, b);
}

export class MetricSet {
  private readonly values = new Map<string, MetricValue>();
  private readonly times = new Map<string, number>();
  private readonly listeners = new Set<MetricListener>();

  /** @param catalog the known metrics (unknown names can still be set, as custom metrics) */
  constructor(readonly catalog: ReadonlyMap<string, MetricDef>) {}

  /** Sets a value at `time` (epoch seconds); returns true when the value changed. */
  set(name: string, value: MetricValue, time: number): boolean {
    const old = this.values.get(name);
    this.times.set(name, time);
    if (equal(old, value)) return false;
    this.values.set(name, Array.isArray(value) ? [...value] : value);
    for (const l of this.listeners) l(name, value);
    return true;
  }

  /** Makes a metric undefined again. */
  clear(name: string): void {
    if (!this.values.delete(name)) return;
    this.times.delete(name);
    for (const l of this.listeners) l(name, undefined);
  }

  get(name: string): MetricValue | undefined {
    return this.values.get(name);
  }

  has(name: string): boolean {
    return this.values.has(name);
  }

  num(name: string): number | undefined {
    const v = this.values.get(name);
    return typeof v === 'number' ? v : typeof v === 'boolean' ? (v ? 1 : 0) : undefined;
  }

  bool(name: string): boolean {
    const v = this.values.get(name);
    return v === true || (typeof v === 'number' && v !== 0);
  }

  str(name: string): string | undefined {
    const v = this.values.get(name);
    return typeof v === 'string' ? v : undefined;
  }

  vec(name: string): readonly number[] | undefined {
    const v = this.values.get(name);
    return Array.isArray(v) ? v : undefined;
  }

  /** Epoch seconds of the last set, undefined when never set. */
  updated(name: string): number | undefined {
    return this.times.get(name);
  }

  /** True when undefined or not set for longer than its class allows (MID when unknown). */
  isStale(name: string, now: number): boolean {
    const t = this.times.get(name);
    if (t === undefined) return true;
    return now - t > (this.catalog.get(name)?.stale ?? 120);
  }

  def(name: string): MetricDef | undefined {
    return this.catalog.get(name);
  }

  /** Names of the defined metrics, sorted byte-wise. */
  names(): string[] {
    return [...this.values.keys()].sort();
  }

  onChange(listener: MetricListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
