/**
 * The module's v3 server link (`server v3`): an MQTT 3.1.1 client as FW3's `ovms_server_v3.cpp`
 * (3.3.006) behaves (docs/protocol/mqtt-v3.md §1–§7, docs/protocol/commands.md §6). This file holds the connection
 * and the link's life; what it publishes and receives lives beside it: the metrics in
 * mqtt-metrics.ts, the clients, commands and requests in mqtt-inbound.ts, the notifications in
 * mqtt-notify.ts, the `server.v3` settings in mqtt-channel.ts.
 * - connects once the module's network is up (`m.net.connected`, `m.net.ip`, `m.net.good.sq`),
 *   client id = vehicle id, no clean session, keep-alive `updatetime.keepalive` (1740 s), last
 *   will `<prefix>metric/s/v3/connected` = `no` (retained, QoS 0); user and password only when set;
 * - after CONNACK subscribes (QoS 1) to `client/+/active`, `client/+/command/+`,
 *   `client/+/request/metric`, `client/+/request/config`, then sends every metric (retained, QoS 0,
 *   alphabetical, at most `queue.sendall` per second), `s.v3.connected` = `yes` among them; then
 *   the changed metrics, and every metric again, as mqtt-metrics.ts describes, also on
 *   `server v3 update all|modified|priority` and on the events of §3.2;
 * - when given the module's event bus (`events`), publishes every event on `event` and
 *   `event/<name>` (QoS 0);
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
import type { LinkStatus, Notification } from '../console/services.js';
import { Backoff } from './backoff.js';
import type { LinkHost } from './host.js';
import { V3Settings, slashes, type V3Channel } from './mqtt-channel.js';
import { V3Inbound } from './mqtt-inbound.js';
import { V3Metrics, type PassKind } from './mqtt-metrics.js';
import { V3Notifications } from './mqtt-notify.js';

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

const NOT_STARTED: LinkStatus = { started: false, state: 'Stopped', detail: 'OVMS v3 server has not been started' };

/** The broker URL without user and password, for log lines. */
export function brokerName(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(not a URL)';
  }
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
  private readonly settings: V3Settings;
  private readonly metrics: V3Metrics;
  private readonly inbound: V3Inbound;
  private readonly notifications: V3Notifications;
  private readonly backoff: Backoff;
  private readonly broker: string;

  constructor(
    private readonly host: LinkHost,
    private readonly opts: MqttLinkOptions,
  ) {
    this.prefix = opts.topicPrefix ?? (opts.vehicleId ? `ovms/${opts.username}/${opts.vehicleId}/` : `ovms/${opts.username}/`);
    this.settings = new V3Settings(host.config);
    this.backoff = new Backoff({ minMs: opts.minBackoffMs, maxMs: opts.maxBackoffMs, random: opts.random });
    this.broker = brokerName(opts.url);
    const session = (): boolean => this.session;
    const channel: V3Channel = {
      host,
      prefix: this.prefix,
      settings: this.settings,
      get connected() {
        return session();
      },
      publish: (topic, payload, qos, retain, done) => this.publish(topic, payload, qos, retain, done),
      publishWritten: (topic, payload) => this.publishWritten(topic, payload),
      raise: (name) => this.raise(name),
    };
    this.metrics = new V3Metrics(channel);
    this.inbound = new V3Inbound(channel, this.metrics, opts.clock ?? Date.now);
    this.notifications = new V3Notifications(channel);
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
      this.host.metrics.onChange((name) => this.metrics.changed(name)),
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
    this.metrics.reset();
    this.notifications.clear();
    this.inbound.reset(false);
    if (wasSession) this.raise('server.v3.disconnected');
    if (c) await new Promise<void>((resolve) => c.end(true, () => resolve()));
    return true;
  }

  /** `server v3 update all|modified|priority`. */
  update(kind: PassKind): void {
    this.enqueue(() => this.metrics.startPass(kind));
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
      keepalive: this.settings.number('updatetime.keepalive'),
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
    this.inbound.reset(true);
    this.enqueue(() => {
      if (this.client !== c) return;
      const filters = ['active', 'command/+', 'request/metric', 'request/config'].map((f) => `${this.prefix}client/+/${f}`);
      c.subscribe(filters, { qos: 1 }, (err) => {
        if (err) this.host.log.info({ err: err.message, link: 'v3' }, 'v3 link subscribe failed');
      });
      this.metrics.startPass('all');
      this.raise('server.v3.connected');
    });
  }

  private onClose(c: MqttClient, refused: number | undefined, reason: string | undefined): void {
    if (this.client !== c) return;
    this.client = null;
    const wasSession = this.session;
    this.session = false;
    this.metrics.reset();
    this.notifications.sessionLost();
    c.end(true);
    if (wasSession) {
      this.inbound.reset(false);
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

  private tick(): void {
    this.tickQueued = false;
    if (!this.running) return;
    if (this.phase === 'network') {
      if (this.networkUp()) this.scheduleConnect();
      return;
    }
    if (!this.session) return;
    this.inbound.purge();
    this.metrics.tick(this.inbound.peers);
    this.notifications.pump();
  }

  private onPublish(packet: IPublishPacket, done: (err?: Error) => void): void {
    const topic = packet.topic;
    const payload = packet.payload.toString();
    this.enqueue(() => this.inbound.handle(topic, payload)).then(
      () => done(),
      () => done(),
    );
  }

  // --- notifications (§5) and events (§6) ---

  /** Queues a data record raised earlier, at `created` (module time): it goes out with its age (`--simulate day`). */
  addHistory(n: Notification, created: number): void {
    if (this.notifications.add(n, created) && this.session) this.enqueue(() => this.notifications.pump());
  }

  private onNotification(n: Notification): void {
    if (this.notifications.add(n) && this.session) this.enqueue(() => this.notifications.pump());
  }

  private raise(name: string): void {
    if (this.opts.events) this.opts.events.raise(name);
    else this.enqueue(() => this.onEvent(name));
  }

  private onEvent(name: string): void {
    if (!this.session || !this.running) return;
    const quiet = name.startsWith('ticker.') || name.startsWith('clock.') || name === 'system.event' || name === 'system.wifi.scan.done';
    if (!quiet) {
      if (this.settings.flag('events.legacy_topic', true)) this.publish(`${this.prefix}event`, name, 0, false);
      this.publish(`${this.prefix}event/${slashes(name)}`, '', 0, false);
    }
    this.metrics.afterEvent(name);
  }
}
