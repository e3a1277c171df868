/**
 * One vehicle of the MQTT bridge: its latest v3 metric values, its online state, its
 * presence announcement and its commands; the hub's V3Link for it.
 *
 * - Metrics (docs/protocol/mqtt-v3.md §3.1): each payload is parsed as its catalog type (an empty one makes the
 *   metric undefined) and kept with the time it came. A live publish schedules a render of the v2
 *   records (§11, renderRecords of the core) a moment later, so that a burst of metrics makes one
 *   render; only records whose text changed go to the hub (stored, logged, forwarded like a car's).
 *   Retained values replayed by an external broker are kept but not rendered: they are not news.
 * - Online: `metric/s/v3/connected` says so (`yes`; `no` is the will); any other live publish
 *   from the module means online too (§3.1); on the embedded broker, the end of the connection
 *   that published means offline (a clean DISCONNECT has no will).
 * - Presence (§4.1, §11.6): while apps or API sessions watch the vehicle, the bridge publishes `1`
 *   on `client/<bridge id>/active` every 60 s, and `0` when the last one leaves.
 * - Commands (§4.2, §11.7): an MP command becomes its console command on
 *   `client/<bridge id>/command/<request id>`; the answer on `…/response/<request id>` is matched by
 *   the request id.
 */
import { mpToShell, shellOutcome, unmappedOutcome, type ShellCommand } from '../core/commands/shell-map.js';
import type { MpCommand } from '../core/commands/request.js';
import type { CommandOutcome } from '../core/commands/result.js';
import { METRIC_CATALOG, newMetricSet } from '../core/metrics/catalog.js';
import { parseMetricPayload } from '../core/metrics/payload.js';
import { renderRecords } from '../core/metrics/v2-records.js';
import { dataRecord, EVENT_HISTORY_TYPE, eventName, eventNotificationData, notificationData } from '../core/mqtt/notify.js';
import type { V3Message } from '../core/mqtt/topics.js';
import { VtsError } from '../errors.js';
import type { Hub } from '../hub/hub.js';
import type { V3Link } from '../hub/links/v3-link.js';
import type { Logger } from 'pino';
import type { BrokerPort, InboundMessage } from './port.js';

export type EventMode = 'notify' | 'history' | 'off';

/** What every bridged vehicle shares. */
export interface BridgeContext {
  hub: Hub;
  port: BrokerPort;
  log: Logger;
  /** The bridge's v3 client id (`client/<id>/…`). */
  clientId: string;
  events: EventMode;
  renderDelayMs: number;
  presenceRefreshMs: number;
  nextRequestId(): string;
}

interface PendingCommand {
  cmd: MpCommand;
  shell: ShellCommand;
  resolve(outcome: CommandOutcome): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

export class BridgedVehicle implements V3Link {
  readonly label: string;
  private online = false;
  /** The embedded broker's connection that last published for the vehicle. */
  private source: object | undefined;
  private readonly metrics = newMetricSet();
  /** The record texts last given to the hub, by code. */
  private readonly sent = new Map<string, string>();
  private renderTimer: NodeJS.Timeout | null = null;
  private presenceTimer: NodeJS.Timeout | null = null;
  /** The module sends the legacy `event` topic: the `event/<name>` copies are ignored. */
  private legacyEvents = false;
  private readonly pending = new Map<string, PendingCommand>();

  constructor(
    private readonly ctx: BridgeContext,
    readonly vehicleId: string,
    readonly ownerId: number,
    /** `ovms/<user>/<vehicle as the module spells it>/`. */
    readonly prefix: string,
  ) {
    this.label = `mqtt:${prefix}`;
  }

  get isOnline(): boolean {
    return this.online;
  }

  handle(msg: V3Message, m: InboundMessage): void {
    switch (msg.kind) {
      case 'metric':
        return this.onMetric(msg.name, m);
      case 'notify':
        this.alive(m);
        this.ctx.hub.v3Notification(this.vehicleId, this.ownerId, notificationData(msg.type, m.payload.toString('utf8')));
        return;
      case 'notify-data': {
        this.alive(m);
        const rec = dataRecord(m.payload.toString('utf8'), msg.age);
        if (!rec) {
          this.ctx.log.info({ vehicle: this.vehicleId, subtype: msg.subtype }, 'v3 data notification is not a record: ignored');
          return;
        }
        this.ctx.hub.v3Historical(this.vehicleId, rec).catch((err: unknown) => this.ctx.log.error({ err, vehicle: this.vehicleId }, 'storing a v3 data record failed'));
        return;
      }
      case 'event':
        return this.onEvent(msg.name, m);
      case 'response':
        return this.onResponse(msg.clientId, msg.requestId, m);
      case 'other':
        return;
    }
  }

  private onMetric(name: string, m: InboundMessage): void {
    const text = m.payload.toString('utf8');
    const value = parseMetricPayload(METRIC_CATALOG.get(name), text);
    const now = this.ctx.hub.seconds();
    if (value === undefined) this.metrics.clear(name);
    else this.metrics.set(name, value, now);
    if (name === 's.v3.connected') this.setOnline(value === true, m.source);
    else this.alive(m);
    if (!m.replayed && this.online) this.scheduleRender();
  }

  private onEvent(topicName: string | undefined, m: InboundMessage): void {
    if (m.replayed) return;
    this.alive(m);
    if (topicName === undefined) this.legacyEvents = true;
    else if (this.legacyEvents) return;
    const name = eventName(topicName ?? m.payload.toString('utf8'));
    if (!name || this.ctx.events === 'off') return;
    const { hub } = this.ctx;
    if (this.ctx.events === 'notify') hub.v3ToApps(this.vehicleId, 'P', eventNotificationData(name));
    const keep = hub.options.notificationHistorySeconds;
    if (keep > 0) {
      hub
        .v3Historical(this.vehicleId, { type: EVENT_HISTORY_TYPE, recordNumber: 0, lifetime: keep, data: name, timeDiff: 0 })
        .catch((err: unknown) => this.ctx.log.error({ err, vehicle: this.vehicleId }, 'storing a v3 event failed'));
    }
  }

  private onResponse(clientId: string, requestId: string, m: InboundMessage): void {
    if (m.replayed || clientId !== this.ctx.clientId) return;
    this.alive(m);
    const p = this.pending.get(requestId);
    if (!p) return; // timed out, or another vts's
    this.pending.delete(requestId);
    clearTimeout(p.timer);
    p.resolve(shellOutcome(p.cmd, p.shell, m.payload.toString('utf8')));
  }

  /** A live publish of the module: it is online. */
  private alive(m: InboundMessage): void {
    if (!m.replayed) this.setOnline(true, m.source);
  }

  private setOnline(on: boolean, source: object | undefined): void {
    if (source) this.source = source;
    if (on === this.online) return;
    this.online = on;
    const { hub, log } = this.ctx;
    log.info({ vehicle: this.vehicleId, link: 'mqtt' }, on ? 'v3 vehicle online' : 'v3 vehicle offline');
    if (on) {
      hub.attachV3(this.vehicleId, this.ownerId, this);
      this.scheduleRender();
    } else {
      this.stopPresence(false);
      hub.detachV3(this.vehicleId, this);
    }
  }

  /** The embedded broker's connection `source` ended. */
  gone(source: object): void {
    if (this.source === source) {
      this.source = undefined;
      this.setOnline(false, undefined);
    }
  }

  /** The bridge lost its (external) broker: nothing is known until it is back. */
  lost(): void {
    this.setOnline(false, undefined);
  }

  private scheduleRender(): void {
    if (this.renderTimer) return;
    this.renderTimer = setTimeout(() => {
      this.renderTimer = null;
      this.render();
    }, this.ctx.renderDelayMs);
  }

  private render(): void {
    if (!this.online) return;
    const { hub } = this.ctx;
    for (const r of renderRecords(this.metrics, { distanceUnit: 'K', now: hub.seconds() })) {
      if (this.sent.get(r.code) === r.data) continue;
      this.sent.set(r.code, r.data);
      hub.v3Record(this.vehicleId, this.ownerId, r.code, r.data);
    }
  }

  // --- V3Link ---

  clientCount(n: number): void {
    if (n > 0 && !this.presenceTimer) {
      this.announce('1');
      this.presenceTimer = setInterval(() => this.announce('1'), this.ctx.presenceRefreshMs);
      this.presenceTimer.unref();
    } else if (n === 0) {
      this.stopPresence(true);
    }
  }

  /** Whether the bridge announces itself as the vehicle's client now. */
  get announcing(): boolean {
    return this.presenceTimer !== null;
  }

  stopPresence(say: boolean): void {
    if (!this.presenceTimer) return;
    clearInterval(this.presenceTimer);
    this.presenceTimer = null;
    if (say) this.announce('0');
  }

  private announce(value: '0' | '1'): void {
    this.ctx.port
      .publish(`${this.prefix}client/${this.ctx.clientId}/active`, value, { qos: 1, retain: false })
      .catch((err: unknown) => this.ctx.log.warn({ err: (err as Error).message, vehicle: this.vehicleId }, 'v3 presence not published'));
  }

  run(command: MpCommand, timeoutMs: number): Promise<CommandOutcome> {
    const shell = mpToShell(command);
    if (!shell) return Promise.resolve(unmappedOutcome());
    const requestId = this.ctx.nextRequestId();
    const topic = `${this.prefix}client/${this.ctx.clientId}/command/${requestId}`;
    const publish = (): Promise<void> =>
      this.ctx.port.publish(topic, shell.line, { qos: 1, retain: false }).catch((err: unknown) => {
        throw new VtsError('VTS_ERR_NOT_CONNECTED', `${this.vehicleId}: ${(err as Error).message}`);
      });
    if (command.records === 0) return publish().then(() => ({ result: 0, output: '' }));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(requestId);
        reject(new VtsError('VTS_ERR_COMMAND_TIMEOUT', `${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(requestId, { cmd: command, shell, resolve, reject, timer });
      publish().catch((err: unknown) => {
        clearTimeout(timer);
        this.pending.delete(requestId);
        reject(err);
      });
    });
  }

  /** Ends everything (the bridge closes): presence `0`, pending commands fail, the hub forgets it. */
  async dispose(): Promise<void> {
    if (this.renderTimer) clearTimeout(this.renderTimer);
    this.renderTimer = null;
    const wasAnnouncing = this.announcing;
    if (this.presenceTimer) clearInterval(this.presenceTimer);
    this.presenceTimer = null;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      this.pending.delete(id);
      p.reject(new VtsError('VTS_ERR_NOT_CONNECTED', 'the server is shutting down'));
    }
    if (this.online) {
      this.online = false;
      this.ctx.hub.detachV3(this.vehicleId, this);
    }
    if (wasAnnouncing) {
      await this.ctx.port.publish(`${this.prefix}client/${this.ctx.clientId}/active`, '0', { qos: 0, retain: false }).catch(() => undefined);
    }
  }
}
