/**
 * The module's v3 server link (`server v3`): an MQTT 3.1.1 client as FW3's `ovms_server_v3.cpp`
 * (3.3.006) behaves (mqtt-v3.md §1–§7, command-execution.md §6):
 * - connects once the module's network is up (`m.net.connected`, `m.net.ip`, `m.net.good.sq`),
 *   client id = vehicle id, no clean session, keep-alive `updatetime.keepalive` (1740 s), last
 *   will `<prefix>metric/s/v3/connected` = `no` (retained, QoS 0); user and password only when set;
 * - after CONNACK subscribes (QoS 1) to `client/+/active`, `client/+/command/+`,
 *   `client/+/request/metric`, `client/+/request/config`, then sends every metric (retained, QoS 0,
 *   alphabetical, at most `queue.sendall` per second), `s.v3.connected` = `yes` among them;
 * - then sends the changed metrics every N seconds of module time, N by vehicle state and client
 *   presence (§3.2: on 5, charging 10, clients 10, awake 60, idle 600), every metric again every
 *   `updatetime.sendall` (1200) s, on `server v3 update all|modified|priority` and on the events of
 *   §3.2; priority and "immediate" metrics when configured; `metrics.include`/`exclude` filters and
 *   `retain.depth.limit` apply;
 * - counts the clients announced on `client/<cid>/active` (120 s expiry) into `s.v3.peers`;
 * - runs `client/<cid>/command/<rid>` payloads as console commands and publishes the output on
 *   `client/<cid>/response/<rid>` (QoS 1), acknowledging the command only afterwards; answers
 *   `request/metric` and `request/config`;
 * - publishes notifications on `notify/<type>/<subtype>` (info, alert, error QoS 1; data QoS 2 one
 *   at a time), queued while offline and sent one a second after a reconnect; and, when given the
 *   module's event bus (`events`), every event on `event` and `event/<name>` (QoS 0);
 * - never gives up: a failed connect, a refused login (CONNACK code ≠ 0, after which mqtt.js
 *   itself would not retry) and a dropped session are retried by the link (mqtt.js runs with
 *   `reconnectPeriod: 0`) with the capped, jittered back-off of backoff.ts, not the firmware's
 *   fixed 30 s / 60 s; each failure is logged at warn level with its reason and the delay.
 *
 * The tunables (update times, queue sizes, filters, `events.legacy_topic`, `retain.depth.limit`,
 * `updatetime.keepalive`) are read from the module config `server.v3` when used, with the
 * firmware's defaults; the connection identity (URL, user, password, client id, prefix) is fixed by
 * the options for the link's life.
 *
 * Everything the link does runs on one queue, the module's single network task: an inbound publish
 * holds the reading of the next packet until it was processed, so a long command delays metrics,
 * other commands and the acknowledgements, as on a module.
 */
import type tls from 'node:tls';
import { connect, type IClientOptions, type IPublishPacket, type MqttClient } from 'mqtt';
import type { MetricSet } from '../../core/metrics/metric-set.js';
import { metricPayload } from '../../core/metrics/payload.js';
import type { LinkStatus, Notification } from '../console/services.js';
import { Backoff } from './backoff.js';
import type { LinkHost } from './host.js';

/** The module's event bus, which LinkHost does not carry: events to publish, events to raise. */
export interface ModuleEvents {
  on(listener: (name: string) => void): () => void;
  raise(name: string): void;
}

export interface MqttLinkOptions {
  /** `mqtt://host[:port]` (default port 1883) or `mqtts://host[:port]` (8883). */
  url: string;
  /** `server.v3 user`; an empty user (and then the password) is not sent. */
  username: string;
  password: string;
  /** Used verbatim (must end with `/`); default `ovms/<username>/<vehicleid>/` (§1.1). */
  topicPrefix?: string;
  vehicleId: string;
  /** `server.v3 clientid`; default the vehicle id. */
  clientId?: string;
  /** TLS options for `mqtts://` (e.g. `{ ca }`, `{ rejectUnauthorized: false }`). */
  tls?: tls.ConnectionOptions;
  /** The module's events: published on the `event` topics and raised (`server.v3.connected`, `app.connected`…). */
  events?: ModuleEvents;
  /** Delay before the first connect after start and its random jitter (ms); default 0 and 0 (firmware: 10 s + 0..5 s). */
  connectDelayMs?: number;
  connectJitterMs?: number;
  /** Reconnect back-off (ms): the first delay (default 1000) and the cap (default 60000); see backoff.ts. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Random source of the back-off's jitter (default Math.random). */
  random?: () => number;
  /** Real clock in epoch ms for the 120 s client expiry (default Date.now; tests pass their own). */
  clock?: () => number;
}

/** Firmware defaults of the numeric `server.v3` parameters (3.3.006). */
const NUMBERS = {
  'updatetime.idle': 600,
  'updatetime.connected': 10,
  'updatetime.on': 5,
  'updatetime.charging': 10,
  'updatetime.awake': 60,
  'updatetime.sendall': 1200,
  'updatetime.keepalive': 1740,
  'queue.sendall': 100,
  'queue.modified': 150,
} as const;
export type NumberParam = keyof typeof NUMBERS;

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
const CLIENT_TTL_MS = 120_000;
const MAX_PENDING = 100;
const NOT_STARTED: LinkStatus = { started: false, state: 'Stopped', detail: 'OVMS v3 server has not been started' };

const slashes = (s: string): string => s.replace(/\./g, '/');

/** The broker URL without user and password, for log lines. */
export function brokerName(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(not a URL)';
  }
}

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

type Phase = 'network' | 'delay' | 'connecting' | 'authenticating' | 'connected' | 'retry';

const STATES: Record<Phase, string> = {
  network: 'Waiting for network connectivity',
  delay: 'Waiting to connect',
  connecting: 'Connecting...',
  authenticating: 'Authenticating...',
  connected: 'Connected',
  retry: 'Waiting to reconnect',
};

interface Pass {
  names: string[];
  next: number;
  full: boolean;
}

interface Pending extends Notification {
  id: number;
  /** Module time it was raised. */
  created: number;
}

export class MqttLink {
  private running = false;
  private client: MqttClient | null = null;
  private session = false;
  private phase: Phase = 'network';
  private detail = '';
  private deadline = 0;
  private timer: NodeJS.Timeout | null = null;
  private tickTimer: NodeJS.Timeout | null = null;
  private tickQueued = false;
  private task: Promise<void> = Promise.resolve();
  private unsubscribe: (() => void)[] = [];
  readonly prefix: string;
  private readonly clock: () => number;
  /** Metrics changed since they were last sent. */
  private readonly modified = new Set<string>();
  private pass: Pass | null = null;
  /** A modified pass was asked for during a full pass: it follows the full pass. */
  private modifiedAfterFull = false;
  private lastFull = 0;
  private lastTx = 0;
  private lastPriority = 0;
  /** Active clients and when they expire (real ms). */
  private readonly clients = new Map<string, number>();
  private peers = 0;
  private readonly pending: Pending[] = [];
  private readonly pendingData: Pending[] = [];
  private dataInFlight: Pending | null = null;
  private entryId = 0;
  private readonly backoff: Backoff;
  private readonly broker: string;

  constructor(
    private readonly host: LinkHost,
    private readonly opts: MqttLinkOptions,
  ) {
    this.prefix = opts.topicPrefix ?? (opts.vehicleId ? `ovms/${opts.username}/${opts.vehicleId}/` : `ovms/${opts.username}/`);
    this.clock = opts.clock ?? Date.now;
    this.backoff = new Backoff({ minMs: opts.minBackoffMs, maxMs: opts.maxBackoffMs, random: opts.random });
    this.broker = brokerName(opts.url);
  }

  /** The state for `server v3 status` (§1.3). */
  status(): LinkStatus {
    if (!this.running) return { ...NOT_STARTED };
    let state = STATES[this.phase];
    if (this.phase === 'delay' || this.phase === 'retry') {
      state += ` (${Math.max(0, Math.ceil((this.deadline - Date.now()) / 1000))} second(s) remaining)`;
    }
    return { started: true, state, detail: this.detail };
  }

  /** True while logged in to the broker. */
  get connected(): boolean {
    return this.session;
  }

  start(): boolean {
    if (this.running) return false;
    this.running = true;
    this.backoff.reset();
    this.phase = 'network';
    this.detail = STATES.network;
    this.unsubscribe = [
      this.host.metrics.onChange((name) => this.modified.add(name)),
      this.host.onNotification((n) => this.onNotification(n)),
    ];
    if (this.opts.events) this.unsubscribe.push(this.opts.events.on((name) => this.enqueue(() => this.onEvent(name))));
    this.tickTimer = setInterval(() => {
      if (this.tickQueued) return;
      this.tickQueued = true;
      this.enqueue(() => this.tick());
    }, 1000);
    this.tickTimer.unref();
    if (this.networkUp()) this.scheduleConnect();
    return true;
  }

  /** Stops the link; the connection is dropped without DISCONNECT, so the broker publishes the will. */
  async stop(): Promise<boolean> {
    if (!this.running) return false;
    this.running = false;
    for (const u of this.unsubscribe) u();
    this.unsubscribe = [];
    if (this.timer) clearTimeout(this.timer);
    if (this.tickTimer) clearInterval(this.tickTimer);
    this.timer = this.tickTimer = null;
    const c = this.client;
    const wasSession = this.session;
    this.client = null;
    this.session = false;
    this.pass = null;
    this.modifiedAfterFull = false;
    this.pending.length = 0;
    this.pendingData.length = 0;
    this.dataInFlight = null;
    this.clients.clear();
    this.peers = 0;
    this.host.setPeers('v3', 0, false);
    if (wasSession) this.raise('server.v3.disconnected');
    if (c) await new Promise<void>((resolve) => c.end(true, () => resolve()));
    return true;
  }

  /** `server v3 update all|modified|priority`. */
  update(kind: 'all' | 'modified' | 'priority'): void {
    this.enqueue(() => this.startPass(kind));
  }

  // --- connection state machine (§1.2) ---

  private networkUp(): boolean {
    const m = this.host.metrics;
    return m.bool('m.net.connected') && m.bool('m.net.ip') && (!m.has('m.net.good.sq') || m.bool('m.net.good.sq'));
  }

  private scheduleConnect(): void {
    const delay = (this.opts.connectDelayMs ?? 0) + Math.floor(Math.random() * (this.opts.connectJitterMs ?? 0));
    this.wait('delay', delay, 'Waiting to connect');
  }

  private wait(phase: 'delay' | 'retry', ms: number, detail: string): void {
    if (!this.running) return;
    this.phase = phase;
    this.detail = detail;
    this.deadline = Date.now() + ms;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.running) return;
      if (this.networkUp()) this.connectNow();
      else this.phase = 'network';
    }, ms);
    this.timer.unref();
  }

  private connectNow(): void {
    const o = this.opts;
    const username = o.username;
    const options: IClientOptions = {
      ...(o.tls as IClientOptions | undefined),
      clientId: o.clientId ?? o.vehicleId,
      protocolId: 'MQTT',
      protocolVersion: 4,
      clean: false,
      keepalive: this.setting('updatetime.keepalive'),
      reconnectPeriod: 0,
      connectTimeout: 30_000,
      will: { topic: `${this.prefix}metric/s/v3/connected`, payload: Buffer.from('no'), qos: 0, retain: true },
      ...(username ? { username } : {}),
      ...(username && o.password ? { password: o.password } : {}),
    };
    this.phase = 'connecting';
    this.detail = 'Connecting...';
    let c: MqttClient;
    try {
      c = connect(o.url, options);
    } catch (err) {
      this.retry('Error: Connection failed', 'v3 link connection failed', (err as Error).message);
      return;
    }
    this.client = c;
    let refused: number | undefined;
    let reason: string | undefined;
    c.on('error', (err: Error & { code?: unknown }) => {
      if (typeof err.code === 'number') refused = err.code;
      reason = err.message; // e.g. "Connection refused: Not authorized", "connect ECONNREFUSED …"
      this.host.log.debug({ err: err.message, link: 'v3', vehicle: o.vehicleId }, 'v3 link error');
    });
    c.stream.once('connect', () => {
      if (this.client === c && this.phase === 'connecting') {
        this.phase = 'authenticating';
        this.detail = 'Authenticating...';
      }
    });
    c.on('connect', () => this.onLogin(c));
    c.on('close', () => this.onClose(c, refused, reason));
    c.handleMessage = (packet, done) => this.onPublish(packet, done);
  }

  private onLogin(c: MqttClient): void {
    if (this.client !== c || !this.running) return;
    this.session = true;
    this.backoff.reset();
    this.phase = 'connected';
    this.detail = 'OVMS V3 MQTT login successful';
    this.host.log.info({ vehicle: this.opts.vehicleId, broker: this.broker }, 'v3 link connected');
    this.clients.clear();
    this.peers = 0;
    this.host.setPeers('v3', 0, true);
    this.enqueue(() => {
      if (this.client !== c) return;
      const filters = ['active', 'command/+', 'request/metric', 'request/config'].map((f) => `${this.prefix}client/+/${f}`);
      c.subscribe(filters, { qos: 1 }, (err) => {
        if (err) this.host.log.info({ err: err.message, link: 'v3' }, 'v3 link subscribe failed');
      });
      this.startPass('all');
      this.raise('server.v3.connected');
    });
  }

  private onClose(c: MqttClient, refused: number | undefined, reason: string | undefined): void {
    if (this.client !== c) return;
    this.client = null;
    const wasSession = this.session;
    this.session = false;
    this.pass = null;
    this.modifiedAfterFull = false;
    this.dataInFlight = null;
    c.end(true);
    if (wasSession) {
      this.clients.clear();
      this.peers = 0;
      this.host.setPeers('v3', 0, false);
      this.raise('server.v3.disconnected');
    }
    if (!this.running) return;
    if (wasSession) this.retry('Disconnected from OVMS Server V3', 'v3 link dropped', reason ?? 'closed by the broker');
    else if (refused !== undefined) {
      const detail = refused === 3 ? 'Server temporarily unavailable' : 'Authentication error (wrong user/password/client ID)';
      this.retry(detail, 'v3 link login failed', reason ?? `CONNACK return code ${refused}`, { refused });
    } else this.retry('Error: Connection failed', 'v3 link connection failed', reason ?? 'closed before CONNACK');
  }

  /** Logs a failure (warn, with its reason: never a password) and waits for the back-off's next delay. */
  private retry(detail: string, message: string, reason: string, extra: { refused?: number } = {}): void {
    const delay = this.backoff.next();
    this.host.log.warn({ link: 'v3', vehicle: this.opts.vehicleId, broker: this.broker, reason, ...extra, retryInMs: delay }, message);
    this.wait('retry', delay, detail);
  }

  // --- the network task ---

  private enqueue(job: () => Promise<void> | void): Promise<void> {
    const run = this.task.then(job);
    this.task = run.catch((err: unknown) => this.host.log.warn({ err, link: 'v3' }, 'v3 link task failed'));
    return run;
  }

  private setting(name: NumberParam): number {
    const raw = this.host.config.get('server.v3', name)?.trim();
    const n = raw ? Number(raw) : NaN;
    return Number.isFinite(n) && n >= 0 ? n : NUMBERS[name];
  }

  private flag(name: string, dflt: boolean): boolean {
    const raw = this.host.config.get('server.v3', name)?.trim().toLowerCase();
    if (!raw) return dflt;
    return raw === 'yes' || raw === 'true' || raw === '1';
  }

  private text(name: string): string {
    return this.host.config.get('server.v3', name) ?? '';
  }

  private publish(topic: string, payload: string, qos: 0 | 1 | 2, retain: boolean, done?: (err?: Error) => void): boolean {
    const c = this.client;
    if (!c || !this.session) return false;
    try {
      c.publish(topic, payload, { qos, retain }, done);
      return true;
    } catch (err) {
      this.host.log.info({ err: (err as Error).message, link: 'v3' }, 'v3 link publish failed');
      return false;
    }
  }

  private tick(): void {
    this.tickQueued = false;
    if (!this.running) return;
    if (this.phase === 'network') {
      if (this.networkUp()) this.scheduleConnect();
      return;
    }
    if (!this.session) return;
    this.purgeClients();
    const now = this.host.now();
    if (this.pass) this.sendBatch();
    else {
      const sendall = this.setting('updatetime.sendall');
      if (sendall > 0 && now - this.lastFull >= sendall) this.startPass('all');
      else if (now - this.lastTx >= modifiedInterval(this.host.metrics, this.peers, (n) => this.setting(n))) this.startPass('modified');
    }
    if (this.flag('updatetime.priority', false) && this.host.metrics.bool('v.e.awake') && now - this.lastPriority >= this.setting('updatetime.on')) {
      this.startPass('priority');
    }
    if (this.flag('updatetime.immediately', false)) this.sendImmediate();
    this.pumpNotifications();
  }

  // --- metrics (§3) ---

  private included(name: string): boolean {
    const include = this.text('metrics.include');
    if (include.trim() !== '' && !matchesList(include, name)) return false;
    return !matchesList(this.text('metrics.exclude'), name);
  }

  private publishMetric(name: string): boolean {
    const value = this.host.metrics.get(name);
    if (value === undefined) return false;
    const topic = `${this.prefix}metric/${slashes(name)}`;
    const retain = !(this.flag('retain.depth.limit', false) && topic.split('/').length - 1 > 7);
    return this.publish(topic, metricPayload(this.host.metrics.def(name), value), 0, retain);
  }

  private startPass(kind: 'all' | 'modified' | 'priority'): void {
    if (!this.session) return;
    const now = this.host.now();
    if (kind === 'priority') {
      this.lastPriority = now;
      const extra = this.text('metrics.priority');
      for (const name of [...this.modified].sort()) {
        if (!PRIORITY.includes(name) && !matchesList(extra, name)) continue;
        this.modified.delete(name);
        if (this.included(name)) this.publishMetric(name);
      }
      return;
    }
    if (kind === 'all') {
      this.pass = { names: this.host.metrics.names(), next: 0, full: true };
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

  /** Sends the next batch of the running pass (§3.2: `queue.sendall` / `queue.modified` a tick). */
  private sendBatch(): void {
    const p = this.pass;
    if (!p) return;
    const limit = Math.max(1, this.setting(p.full ? 'queue.sendall' : 'queue.modified'));
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
    const include = this.text('metrics.include.immediately');
    const exclude = this.text('metrics.exclude.immediately');
    for (const name of [...this.modified].sort()) {
      if (!matchesList(include, name) || matchesList(exclude, name)) continue;
      this.modified.delete(name);
      if (this.included(name)) this.publishMetric(name);
    }
  }

  // --- clients, commands, requests (§4) ---

  private onPublish(packet: IPublishPacket, done: (err?: Error) => void): void {
    const topic = packet.topic;
    const payload = packet.payload.toString();
    this.enqueue(() => this.handle(topic, payload)).then(
      () => done(),
      () => done(),
    );
  }

  private async handle(topic: string, payload: string): Promise<void> {
    if (!topic.startsWith(this.prefix)) return;
    const parts = topic.slice(this.prefix.length).split('/');
    if (parts[0] !== 'client' || !parts[1]) return;
    const cid = parts[1];
    if (parts.length === 3 && parts[2] === 'active') return this.onActive(cid, payload);
    if (parts.length !== 4) return;
    if (parts[2] === 'command') return this.onCommand(cid, parts[3]!, payload);
    if (parts[2] === 'request' && parts[3] === 'metric') return this.onRequestMetric(payload);
    if (parts[2] === 'request' && parts[3] === 'config') return this.onRequestConfig(cid, payload);
  }

  private onActive(cid: string, payload: string): void {
    const present = payload !== '' && payload !== '0';
    if (present) this.clients.set(cid, this.clock() + CLIENT_TTL_MS);
    else this.clients.delete(cid);
    this.peersChanged();
  }

  private purgeClients(): void {
    const now = this.clock();
    for (const [cid, expiry] of this.clients) if (expiry <= now) this.clients.delete(cid);
    this.peersChanged();
  }

  /** A new client count: `s.v3.peers`, `app.connected`/`app.disconnected`, an early modified pass (§4.1). */
  private peersChanged(): void {
    const n = this.clients.size;
    if (n === this.peers) return;
    this.peers = n;
    this.host.setPeers('v3', n, this.session);
    this.raise(n > 0 ? 'app.connected' : 'app.disconnected');
    this.startPass('modified');
  }

  private async onCommand(cid: string, rid: string, payload: string): Promise<void> {
    let output = '';
    if (payload !== '') {
      try {
        output = await this.host.runner.execute(payload);
      } catch (err) {
        this.host.log.warn({ err, link: 'v3' }, 'v3 command failed');
        output = `Error: ${(err as Error).message}\n`;
      }
    }
    await this.publishWritten(`${this.prefix}client/${cid}/response/${rid}`, output);
  }

  /**
   * Publishes at QoS 1 and resolves once the packet went to the socket (or the connection is
   * gone), so that the acknowledgement of the command that caused it follows it (§1).
   */
  private publishWritten(topic: string, payload: string): Promise<void> {
    const c = this.client;
    if (!c || !this.session) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const finish = (): void => {
        c.off('close', finish);
        resolve();
      };
      c.once('close', finish);
      try {
        c.publish(topic, payload, { qos: 1, retain: false, cbStorePut: finish }, (err) => {
          if (err) finish();
        });
      } catch (err) {
        this.host.log.info({ err: (err as Error).message, link: 'v3' }, 'v3 link publish failed');
        finish();
      }
    });
  }

  private onRequestMetric(payload: string): void {
    for (const name of this.host.metrics.names()) if (matchesList(payload, name)) this.publishMetric(name);
  }

  private onRequestConfig(cid: string, payload: string): void {
    const request = payload.trim();
    const slash = request.indexOf('/');
    if (slash <= 0) return;
    const param = request.slice(0, slash);
    const instance = request.slice(slash + 1);
    const value = this.host.config.get(param, instance) ?? '';
    this.publish(`${this.prefix}client/${cid}/config/${slashes(param)}/${slashes(instance)}`, value, 0, false);
  }

  // --- notifications (§5) and events (§6) ---

  private onNotification(n: Notification): void {
    if (n.subtype === 'server.v3.auth.failure') return;
    const entry: Pending = { ...n, id: ++this.entryId, created: this.host.now() };
    const queue = n.type === 'data' ? this.pendingData : this.pending;
    queue.push(entry);
    if (queue.length > MAX_PENDING) queue.shift();
    if (this.session) this.enqueue(() => this.pumpNotifications());
  }

  /** Sends the oldest pending info/alert/error entry, and the oldest data entry unless one is in flight. */
  private pumpNotifications(): void {
    if (!this.session) return;
    const n = this.pending[0];
    if (n && this.publish(`${this.prefix}notify/${n.type}/${slashes(n.subtype)}`, n.text, 1, false)) this.pending.shift();
    const d = this.pendingData[0];
    if (!d || this.dataInFlight) return;
    const age = Math.min(0, d.created - this.host.now());
    const topic = `${this.prefix}notify/data/${slashes(d.subtype)}/${d.id}/${age}`;
    const sent = this.publish(topic, d.text.split('\n', 1)[0]!, 2, false, (err) => {
      if (this.dataInFlight !== d) return;
      this.dataInFlight = null;
      const i = this.pendingData.indexOf(d);
      if (!err && i >= 0) this.pendingData.splice(i, 1);
    });
    if (sent) this.dataInFlight = d;
  }

  private raise(name: string): void {
    if (this.opts.events) this.opts.events.raise(name);
    else this.enqueue(() => this.onEvent(name));
  }

  private onEvent(name: string): void {
    if (!this.session || !this.running) return;
    const quiet = name.startsWith('ticker.') || name.startsWith('clock.') || name === 'system.event' || name === 'system.wifi.scan.done';
    if (!quiet) {
      if (this.flag('events.legacy_topic', true)) this.publish(`${this.prefix}event`, name, 0, false);
      this.publish(`${this.prefix}event/${slashes(name)}`, '', 0, false);
    }
    const now = this.host.now();
    if (name === 'app.connected' || name === 'server.v3.connected') {
      if (now - this.lastFull > 30) this.startPass('all');
      else if (now - this.lastTx > 20) this.startPass('modified');
    } else if (MODIFIED_EVENTS.has(name)) this.startPass('modified');
  }
}
