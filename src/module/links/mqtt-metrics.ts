/**
 * The metrics of the v3 link (docs/protocol/mqtt-v3.md §3): every metric retained under
 * `<prefix>metric/<name with / for .>` (QoS 0); a full pass after login, every
 * `updatetime.sendall` seconds and on some events, at most `queue.sendall` a second; the changed
 * metrics every N seconds of module time, N by vehicle state and client presence (§3.2), at most
 * `queue.modified` a second; priority and "immediate" metrics when configured; the
 * `metrics.include`/`exclude` filters and `retain.depth.limit` apply to all.
 */
import type { MetricSet } from '../../core/metrics/metric-set.js';
import { metricPayload } from '../../core/metrics/payload.js';
import { slashes, type NumberParam, type V3Channel } from './mqtt-channel.js';

const PRIORITY = ['v.p.latitude', 'v.p.longitude', 'v.p.altitude', 'v.p.speed', 'v.p.gpsspeed', 'm.time.utc'];
/** Events that force a modified pass (§3.2). */
const MODIFIED_EVENTS = new Set([
  'vehicle.charge.start',
  'vehicle.charge.stop',
  'vehicle.charge.finished',
  'vehicle.awake',
  'vehicle.on',
  'vehicle.off',
  'vehicle.locked',
  'vehicle.unlocked',
  'location.alert.flatbed.moved',
  'location.alert.valet.bounds',
  'app.disconnected',
]);

/** Whether `name` matches a comma list of names with `*` only as first or last character (§3.1). */
export function matchesList(list: string, name: string): boolean {
  for (const raw of list.split(',')) {
    const p = raw.trim();
    if (p === '') continue;
    if (p === '*') return true;
    const head = p.startsWith('*');
    const tail = p.endsWith('*');
    const core = p.slice(head ? 1 : 0, tail ? -1 : undefined);
    if (head && tail ? name.includes(core) : head ? name.endsWith(core) : tail ? name.startsWith(core) : name === core) return true;
  }
  return false;
}

/** Seconds between modified-metric passes (§3.2): on, charging, clients present, awake, idle. */
export function modifiedInterval(metrics: MetricSet, peers: number, setting: (name: NumberParam) => number): number {
  if (metrics.bool('v.e.on')) return setting('updatetime.on');
  if (metrics.bool('v.c.charging')) return setting('updatetime.charging');
  if (peers > 0) return setting('updatetime.connected');
  if (metrics.bool('v.e.awake')) return setting('updatetime.awake');
  return setting('updatetime.idle');
}

interface Pass {
  names: string[];
  next: number;
  full: boolean;
}

export type PassKind = 'all' | 'modified' | 'priority';

export class V3Metrics {
  /** Metrics changed since they were last sent. */
  private readonly modified = new Set<string>();
  private pass: Pass | null = null;
  /** A modified pass was asked for during a full pass: it follows the full pass. */
  private modifiedAfterFull = false;
  private lastFull = 0;
  private lastTx = 0;
  private lastPriority = 0;

  constructor(private readonly ch: V3Channel) {}

  /** A metric changed: it is sent by the next modified pass. */
  changed(name: string): void {
    this.modified.add(name);
  }

  /** The session is gone: the running pass with it (the changed metrics stay marked). */
  reset(): void {
    this.pass = null;
    this.modifiedAfterFull = false;
  }

  /** Once a second while logged in, `peers` clients present: the running pass goes on, or one is due. */
  tick(peers: number): void {
    const now = this.ch.host.now();
    const setting = (name: NumberParam): number => this.ch.settings.number(name);
    if (this.pass) this.sendBatch();
    else {
      const sendall = setting('updatetime.sendall');
      if (sendall > 0 && now - this.lastFull >= sendall) this.startPass('all');
      else if (now - this.lastTx >= modifiedInterval(this.ch.host.metrics, peers, setting)) this.startPass('modified');
    }
    const settings = this.ch.settings;
    if (settings.flag('updatetime.priority', false) && this.ch.host.metrics.bool('v.e.awake') && now - this.lastPriority >= setting('updatetime.on')) {
      this.startPass('priority');
    }
    if (settings.flag('updatetime.immediately', false)) this.sendImmediate();
  }

  /** The passes a module event asks for (§3.2): a client or the session came, the vehicle changed state. */
  afterEvent(name: string): void {
    const now = this.ch.host.now();
    if (name === 'app.connected' || name === 'server.v3.connected') {
      if (now - this.lastFull > 30) this.startPass('all');
      else if (now - this.lastTx > 20) this.startPass('modified');
    } else if (MODIFIED_EVENTS.has(name)) this.startPass('modified');
  }

  /** `request/metric` (§4): the metrics matching the payload's list, now. */
  requested(list: string): void {
    for (const name of this.ch.host.metrics.names()) if (matchesList(list, name)) this.publishMetric(name);
  }

  startPass(kind: PassKind): void {
    if (!this.ch.connected) return;
    const now = this.ch.host.now();
    if (kind === 'priority') {
      this.lastPriority = now;
      const extra = this.ch.settings.text('metrics.priority');
      for (const name of [...this.modified].sort()) {
        if (!PRIORITY.includes(name) && !matchesList(extra, name)) continue;
        this.modified.delete(name);
        if (this.included(name)) this.publishMetric(name);
      }
      return;
    }
    if (kind === 'all') {
      this.pass = { names: this.ch.host.metrics.names(), next: 0, full: true };
      this.lastFull = now;
      this.modifiedAfterFull = false;
    } else {
      if (this.pass?.full) {
        this.modifiedAfterFull = true;
        return;
      }
      this.pass = { names: [...this.modified].sort(), next: 0, full: false };
    }
    this.lastTx = now;
    this.sendBatch();
  }

  private included(name: string): boolean {
    const include = this.ch.settings.text('metrics.include');
    if (include.trim() !== '' && !matchesList(include, name)) return false;
    return !matchesList(this.ch.settings.text('metrics.exclude'), name);
  }

  private publishMetric(name: string): boolean {
    const metrics = this.ch.host.metrics;
    const value = metrics.get(name);
    if (value === undefined) return false;
    const topic = `${this.ch.prefix}metric/${slashes(name)}`;
    const retain = !(this.ch.settings.flag('retain.depth.limit', false) && topic.split('/').length - 1 > 7);
    return this.ch.publish(topic, metricPayload(metrics.def(name), value), 0, retain);
  }

  /** Sends the next batch of the running pass (§3.2: `queue.sendall` / `queue.modified` a tick). */
  private sendBatch(): void {
    const p = this.pass;
    if (!p) return;
    const limit = Math.max(1, this.ch.settings.number(p.full ? 'queue.sendall' : 'queue.modified'));
    let sent = 0;
    while (p.next < p.names.length && sent < limit) {
      const name = p.names[p.next++]!;
      if (!p.full && !this.modified.has(name)) continue;
      this.modified.delete(name);
      if (this.included(name) && this.publishMetric(name)) sent++;
    }
    if (p.next < p.names.length) return;
    this.pass = null;
    if (p.full && this.modifiedAfterFull) this.startPass('modified');
  }

  private sendImmediate(): void {
    const include = this.ch.settings.text('metrics.include.immediately');
    const exclude = this.ch.settings.text('metrics.exclude.immediately');
    for (const name of [...this.modified].sort()) {
      if (!matchesList(include, name) || matchesList(exclude, name)) continue;
      this.modified.delete(name);
      if (this.included(name)) this.publishMetric(name);
    }
  }
}
