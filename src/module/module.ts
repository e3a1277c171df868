/**
 * One emulated OVMS v3 module: the simulated vehicle, its console, its configuration and its
 * links (the v2 server link, the v3 MQTT link, the module HTTP and SSH servers). It owns the module clock, which runs
 * `speedup` times faster than real time, and drives the vehicle simulation from it.
 */
import { EventEmitter } from 'node:events';
import type tls from 'node:tls';
import type { Logger } from 'pino';
import { newMetricSet } from '../core/metrics/catalog.js';
import type { MetricSet } from '../core/metrics/metric-set.js';
import { MemoryConfig } from './config.js';
import { ModuleConsole } from './console/console.js';
import type { BootInfo, LinkStatus, ModuleServices, Notification } from './console/services.js';
import type { LinkHost } from './links/host.js';
import { ModuleHttpLink } from './links/http-link.js';
import { MpLink } from './links/mp-link.js';
import { MqttLink, type MqttLinkOptions } from './links/mqtt-link.js';
import { ModuleSshLink } from './links/ssh-link.js';
import { HistoryBackfill } from './links/mp-backfill.js';
import { GRID_LOG_TYPE, TRIP_LOG_TYPE } from './vehicle/day-logs.js';
import { VehicleModel } from './vehicle/model.js';
import type { Point } from './vehicle/route.js';
import { simulateDay, type DayPart } from './vehicle/simulated-day.js';

export const FIRMWARE = '3.3.006-vts/ota_0/main (build vts-emulator)';

export interface ModuleOptions {
  /** Vehicle id on the servers, e.g. `EMU0001`. */
  id: string;
  seed: number;
  /** The vehicle's server password (MP scheme 0 shared secret). */
  carPassword: string;
  /** The module's admin password (`apikey` of the module HTTP server). */
  adminPassword: string;
  /** Module clock speed relative to real time (default 1). */
  speedup?: number;
  /** The v2 server to connect to; none: the v2 link is off. */
  server?: { host: string; port: number; tls?: tls.ConnectionOptions };
  /**
   * The v3 server (MQTT broker) to connect to, with the link's tunables; none: the v3 link is off.
   * `url` is `mqtt://host[:port]` or `mqtts://…`; the topic prefix defaults to `ovms/<username>/<id>/`.
   */
  mqtt?: Omit<MqttLinkOptions, 'vehicleId' | 'clock' | 'events'>;
  /** The module HTTP server (`/api/execute`); none: off. */
  http?: { host?: string; port: number };
  /** The module SSH server; none: off. */
  ssh?: { host?: string; port: number; authorizedKeysFile: string; hostKeyFile: string };
  /**
   * Reconnect back-off of the server links (v2 and mqtt; real ms): first delay (default 1000),
   * cap (default 60000), see links/backoff.ts. The mqtt link's own `minBackoffMs`/`maxBackoffMs` win.
   */
  reconnect?: { minMs?: number; maxMs?: number };
  /** S/D update intervals of the v2 link (seconds of module time). */
  intervals?: { connected: number; idle: number };
  home?: Point;
  /**
   * `day`: the module starts by sending the past 24 hours (vehicle/simulated-day.ts) as history:
   * every record over the v2 link (acknowledged, mp-backfill.ts), or without one the firmware logs
   * over the v3 link; the live car goes on from the day's end.
   */
  simulate?: 'day';
  /** With `simulate`: told after each history record the v2 server acknowledged. */
  onBackfillProgress?: (acked: number, total: number) => void;
  log: Logger;
  /** Real clock in epoch milliseconds (tests pass their own). */
  clock?: () => number;
}

/** The `server.v3` config a module shows for its MQTT options (`config list server.v3`). */
function mqttConfig(m: NonNullable<ModuleOptions['mqtt']>): Record<string, string> {
  const url = new URL(m.url);
  const tls = url.protocol === 'mqtts:';
  return {
    server: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port || (tls ? '8883' : '1883'),
    tls: tls ? 'yes' : 'no',
    user: m.username,
    ...(m.clientId !== undefined ? { clientid: m.clientId } : {}),
    ...(m.topicPrefix !== undefined ? { 'topic.prefix': m.topicPrefix } : {}),
  };
}

const OFF: LinkStatus = { started: false, state: 'Stopped', detail: 'server has not been started' };

export class EmulatedModule implements ModuleServices, LinkHost {
  readonly vehicle: VehicleModel;
  readonly metrics: MetricSet;
  readonly config: MemoryConfig;
  readonly runner: ModuleConsole;
  readonly firmware = FIRMWARE;
  readonly log: Logger;
  readonly v2: MpLink | null;
  readonly mqtt: MqttLink | null;
  readonly http: ModuleHttpLink | null;
  readonly ssh: ModuleSshLink | null;
  /** Ports the HTTP and SSH links listen on once started. */
  readonly ports: { http: number | null; ssh: number | null } = { http: null, ssh: null };
  private readonly events = new EventEmitter<{ notification: [Notification]; event: [string] }>();
  private readonly clock: () => number;
  private readonly speedup: number;
  private readonly realStart: number;
  private readonly moduleStart: number;
  private boot: BootInfo;
  private timer: NodeJS.Timeout | null = null;
  private rebooting = false;
  /** With `simulate`: the day's parts, its v2 backfill (null without the v2 link) and the logs for the v3 link. */
  readonly simulated: { parts: DayPart[]; backfill: HistoryBackfill | null; logs: { time: number; type: string; text: string }[] } | null = null;

  constructor(readonly opts: ModuleOptions) {
    this.log = opts.log.child({ module: opts.id });
    this.clock = opts.clock ?? Date.now;
    this.speedup = opts.speedup ?? 1;
    this.realStart = this.clock();
    this.moduleStart = Math.floor(this.realStart / 1000);
    this.metrics = newMetricSet();
    this.vehicle = new VehicleModel(this.metrics, { id: opts.id, seed: opts.seed, startTime: this.moduleStart, home: opts.home, firmware: FIRMWARE });
    if (opts.simulate === 'day') this.simulated = this.simulateDay();
    this.config = new MemoryConfig({
      vehicle: { id: opts.id, 'units.distance': 'K', timezone: 'UTC0' },
      // the car's home, where the simulation starts and parks (location status, location list)
      locations: { home: `${this.metrics.num('v.p.latitude')},${this.metrics.num('v.p.longitude')},100` },
      password: { module: opts.adminPassword, 'server.v2': opts.carPassword, ...(opts.mqtt ? { 'server.v3': opts.mqtt.password } : {}) },
      'server.v2': opts.server
        ? {
            server: opts.server.host,
            port: String(opts.server.port),
            'updatetime.connected': String(opts.intervals?.connected ?? 60),
            'updatetime.idle': String(opts.intervals?.idle ?? 600),
          }
        : {},
      'server.v3': opts.mqtt ? mqttConfig(opts.mqtt) : {},
      auto: { 'server.v2': opts.server ? 'yes' : 'no', 'server.v3': opts.mqtt ? 'yes' : 'no', 'vehicle.type': this.vehicle.typeCode },
    });
    this.boot = { bootTime: this.moduleStart, resetCount: 0, reason: 'PowerOn' };
    this.runner = new ModuleConsole(this);
    this.v2 = opts.server
      ? new MpLink(this, {
          host: opts.server.host,
          port: opts.server.port,
          tls: opts.server.tls,
          vehicleId: opts.id,
          password: opts.carPassword,
          intervalConnected: opts.intervals?.connected,
          intervalIdle: opts.intervals?.idle,
          minBackoffMs: opts.reconnect?.minMs,
          maxBackoffMs: opts.reconnect?.maxMs,
          backfill: this.simulated?.backfill ?? undefined,
        })
      : null;
    this.mqtt = opts.mqtt
      ? new MqttLink(this, {
          ...(opts.reconnect ? { minBackoffMs: opts.reconnect.minMs, maxBackoffMs: opts.reconnect.maxMs } : {}),
          ...opts.mqtt,
          vehicleId: opts.id,
          clock: this.clock,
          events: {
            on: (listener) => {
              this.events.on('event', listener);
              return () => this.events.off('event', listener);
            },
            raise: (name) => this.raiseEvent(name),
          },
        })
      : null;
    this.http = opts.http
      ? new ModuleHttpLink({ runner: this.runner, adminPassword: opts.adminPassword, log: this.log, host: opts.http.host, port: opts.http.port })
      : null;
    this.ssh = opts.ssh
      ? new ModuleSshLink({
          runner: this.runner,
          authorizedKeysFile: opts.ssh.authorizedKeysFile,
          hostKeyFile: opts.ssh.hostKeyFile,
          log: this.log,
          host: opts.ssh.host,
          port: opts.ssh.port,
        })
      : null;
  }

  /**
   * The past day, ending at the module's start: the car takes the day's final state (the live
   * model goes on from there), the v2 link gets every record as a backfill, the v3 link the logs.
   */
  private simulateDay(): NonNullable<EmulatedModule['simulated']> {
    const end = this.moduleStart;
    const day = simulateDay({ id: this.opts.id, seed: this.opts.seed, end, home: this.opts.home });
    for (const name of day.metrics.names()) {
      const value = day.metrics.get(name);
      if (value !== undefined) this.metrics.set(name, value, end);
    }
    const records = day.records.map((r) => ({ time: end - r.ageSeconds, type: r.type, recordNumber: r.recordNumber, lifetime: r.lifetime, data: r.data }));
    const backfill = this.opts.server ? new HistoryBackfill(records, { onProgress: this.opts.onBackfillProgress }) : null;
    // with both links the v2 backfill carries the logs already: they are not sent twice
    const logs = (this.opts.server ? [] : records)
      .filter((r) => r.type === TRIP_LOG_TYPE || r.type === GRID_LOG_TYPE)
      .map((r) => ({ time: r.time, type: r.type, text: `${r.type},${r.recordNumber},${r.lifetime},${r.data}` }));
    return { parts: day.parts, backfill, logs };
  }

  /** The module clock in epoch seconds. */
  now(): number {
    return this.moduleStart + Math.floor(((this.clock() - this.realStart) / 1000) * this.speedup);
  }

  /** Starts the clock, the direct links (HTTP, SSH: their ports are in `ports` afterwards) and the server links. */
  async start(): Promise<void> {
    if (this.timer) return;
    if (this.http) this.ports.http = await this.http.start();
    if (this.ssh) this.ports.ssh = await this.ssh.start();
    const tick = () => {
      const now = this.now();
      this.vehicle.advance(now);
      this.metrics.set('m.monotonic', now - this.boot.bootTime, now);
    };
    tick();
    this.timer = setInterval(tick, Math.max(50, 1000 / Math.max(1, this.speedup)));
    this.timer.unref();
    this.startLinks();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.all([this.stopLinks(), this.http?.close(), this.ssh?.close()]);
  }

  private startLinks(): void {
    this.v2?.start();
    this.mqtt?.start();
    // the day's logs, once: a reboot's links do not send them again (the firmware's queue is in RAM)
    const logs = this.simulated?.logs.splice(0) ?? [];
    for (const l of logs) {
      this.mqtt?.addHistory({ type: 'data', subtype: l.type === TRIP_LOG_TYPE ? 'log.trip' : 'log.grid', text: l.text }, l.time);
    }
  }

  private async stopLinks(): Promise<void> {
    await Promise.all([this.v2?.stop(), this.mqtt?.stop()]);
  }

  // --- ModuleServices (the console) and LinkHost (the links) ---

  notify(n: Notification): void {
    this.log.debug({ type: n.type, subtype: n.subtype }, 'notification');
    this.events.emit('notification', n);
  }

  onNotification(listener: (n: Notification) => void): () => void {
    this.events.on('notification', listener);
    return () => this.events.off('notification', listener);
  }

  raiseEvent(name: string): void {
    this.log.debug({ event: name }, 'event');
    this.events.emit('event', name);
  }

  linkStatus(link: 'v2' | 'v3'): LinkStatus {
    if (link === 'v2' && this.v2) return this.v2.status();
    if (link === 'v3' && this.mqtt) return this.mqtt.status();
    return { ...OFF, detail: `OVMS ${link} server has not been started` };
  }

  setLink(link: 'v2' | 'v3', started: boolean): boolean {
    const l = link === 'v2' ? this.v2 : this.mqtt;
    if (!l) return false;
    if (started) return l.start();
    if (!l.status().started) return false;
    void l.stop();
    return true;
  }

  scheduleUpdate(link: 'v2' | 'v3', kind: 'all' | 'modified' | 'priority'): void {
    if (link === 'v2') this.v2?.update(kind === 'all');
    else this.mqtt?.update(kind);
  }

  bootInfo(): BootInfo {
    return { ...this.boot };
  }

  setPeers(link: 'v2' | 'v3', peers: number, connected: boolean): void {
    const now = this.now();
    this.metrics.set(`s.${link}.connected`, connected, now);
    this.metrics.set(`s.${link}.peers`, peers, now);
  }

  /** `module reset`: about a second later the links drop, and come back after the "boot". */
  reboot(): void {
    if (this.rebooting) return;
    this.rebooting = true;
    setTimeout(() => {
      void (async () => {
        await this.stopLinks();
        this.boot = { bootTime: this.now(), resetCount: this.boot.resetCount + 1, reason: 'SoftReset' };
        this.log.info('module rebooted');
        setTimeout(() => {
          this.rebooting = false;
          if (this.timer) this.startLinks();
        }, 1000).unref();
      })();
    }, 1000).unref();
  }
}
