/**
 * The MQTT bridge (docs/protocol/mqtt-v3.md §11): reads the v3 vehicles' topics from the broker
 * (embedded or external, through a BrokerPort) and gives each known vehicle a BridgedVehicle that
 * plays its v2 car towards the hub.
 *
 * A topic `ovms/<user>/<vehicle>/…` belongs to a vehicle only when the store has that vehicle and
 * the user owns it: on an open external broker anyone may publish anything, and the bridge must not
 * let one account write another's vehicle. The first message of a prefix starts a lookup; messages
 * wait for it in order; an unknown prefix is looked up again after `unknownRetryMs`.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { bridgeFilters, parseV3Topic, topicPrefix, type V3Topic } from '../core/mqtt/topics.js';
import type { Hub } from '../hub/hub.js';
import type { Store } from '../store/store.js';
import { BridgedVehicle, type BridgeContext, type EventMode } from './bridged-vehicle.js';
import type { BrokerPort, InboundMessage } from './port.js';

export interface BridgeOptions {
  /** The bridge's v3 client id (`client/<id>/active`, `…/command/…`). Default `vts`. */
  clientId?: string;
  /** What module events become (default `notify`: `P` to apps and history). */
  events?: EventMode;
  /** Milliseconds between a metric and the render of the records (a burst makes one render). */
  renderDelayMs?: number;
  presenceRefreshMs?: number;
  unknownRetryMs?: number;
}

type Entry =
  | { state: 'pending'; queue: [V3Topic, InboundMessage][] }
  | { state: 'known'; vehicle: BridgedVehicle }
  | { state: 'unknown'; until: number };

/** Messages kept per prefix while its owner is looked up. */
const MAX_QUEUED = 5000;
/** Prefixes remembered; beyond this, expired unknown ones are dropped, then new ones ignored for a while. */
const MAX_ENTRIES = 50_000;

export class MqttBridge {
  private readonly entries = new Map<string, Entry>();
  private readonly byVehicle = new Map<string, BridgedVehicle>();
  private readonly ctx: BridgeContext;
  private readonly unknownRetryMs: number;
  private requestCounter = 0;
  private readonly requestBase = randomBytes(3).toString('hex');
  private closed = false;
  private lastFullWarning = 0;

  constructor(
    private readonly hub: Hub,
    private readonly store: Store,
    private readonly port: BrokerPort,
    private readonly log: Logger,
    opts: BridgeOptions = {},
  ) {
    this.ctx = {
      hub,
      port,
      log,
      clientId: opts.clientId ?? 'vts',
      events: opts.events ?? 'notify',
      renderDelayMs: opts.renderDelayMs ?? 20,
      presenceRefreshMs: opts.presenceRefreshMs ?? 60_000,
      nextRequestId: () => `${this.requestBase}${(++this.requestCounter).toString(36)}`,
    };
    this.unknownRetryMs = opts.unknownRetryMs ?? 10_000;
  }

  get clientId(): string {
    return this.ctx.clientId;
  }

  async start(): Promise<void> {
    this.port.onLost(() => {
      for (const v of this.byVehicle.values()) v.lost();
    });
    await this.port.start(
      bridgeFilters(this.ctx.clientId),
      (m) => this.onMessage(m),
      (source) => {
        for (const v of this.byVehicle.values()) v.gone(source);
      },
    );
  }

  /** The bridged vehicle of a vehicle id (for tests and status). */
  vehicle(vehicleId: string): BridgedVehicle | undefined {
    return this.byVehicle.get(vehicleId);
  }

  private onMessage(m: InboundMessage): void {
    if (this.closed) return;
    const t = parseV3Topic(m.topic);
    if (!t || t.message.kind === 'other') return;
    const key = `${t.user}/${t.vehicle}`;
    let e = this.entries.get(key);
    if (!e || (e.state === 'unknown' && e.until <= Date.now())) {
      if (!e && this.entries.size >= MAX_ENTRIES && !this.makeRoom()) return;
      e = { state: 'pending', queue: [] };
      this.entries.set(key, e);
      void this.lookup(key, t.user, t.vehicle);
    }
    switch (e.state) {
      case 'pending':
        if (e.queue.length < MAX_QUEUED) e.queue.push([t, m]);
        return;
      case 'known':
        e.vehicle.handle(t.message, m);
        return;
      case 'unknown':
        return;
    }
  }

  /** Drops expired unknown prefixes (someone publishing under many made-up vehicle ids). */
  private makeRoom(): boolean {
    const now = Date.now();
    for (const [key, e] of this.entries) if (e.state === 'unknown' && e.until <= now) this.entries.delete(key);
    if (this.entries.size < MAX_ENTRIES) return true;
    if (now - this.lastFullWarning < 60_000) return false;
    this.lastFullWarning = now;
    this.log.warn({ prefixes: this.entries.size }, 'MQTT bridge: too many unknown topic prefixes: new ones are ignored for now');
    return false;
  }

  private async lookup(key: string, user: string, topicVehicle: string): Promise<void> {
    let vehicle: BridgedVehicle | undefined;
    try {
      const [owner, stored] = await Promise.all([this.store.getOwnerByName(user), this.store.getVehicle(topicVehicle)]);
      if (owner && stored && stored.ownerId === owner.id) {
        vehicle = this.byVehicle.get(stored.id);
        if (!vehicle) {
          vehicle = new BridgedVehicle(this.ctx, stored.id, owner.id, topicPrefix(user, topicVehicle));
          this.byVehicle.set(stored.id, vehicle);
        }
      }
    } catch (err) {
      this.log.error({ err, prefix: `ovms/${key}/` }, 'MQTT bridge: vehicle lookup failed');
    }
    const e = this.entries.get(key);
    if (this.closed || e?.state !== 'pending') return;
    if (!vehicle) {
      this.log.warn({ prefix: `ovms/${key}/` }, 'MQTT bridge: no such vehicle of that user: its topics are ignored (vts vehicle add)');
      this.entries.set(key, { state: 'unknown', until: Date.now() + this.unknownRetryMs });
      return;
    }
    this.entries.set(key, { state: 'known', vehicle });
    for (const [t, m] of e.queue) vehicle.handle(t.message, m);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.byVehicle.values()].map((v) => v.dispose()));
    this.byVehicle.clear();
    this.entries.clear();
    await this.port.close();
  }
}
